// The retroactive conformance below is public (GeneratorFormat is public), so the protocol's
// module must be imported publicly.
public import ArgumentParser
import Foundation
public import FunnelGenerate
import FunnelPipeline

extension GeneratorFormat: ExpressibleByArgument {}
extension LTVShape: ExpressibleByArgument {}

/// `funnel generate`: writes a synthetic data set with planted ground truth.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write realistic synthetic input files with planted ground truth (truth.json).",
        discussion: """
        Writes one file per input kind (installs, opens, retention, purchases, invites, ad_spend, \
        steps, ux) named <kind>-<start date>, plus <kind>-late-<date> files holding events that \
        arrive late, and DIR/truth.json with every planted parameter and the values realised. \
        The same arguments always write the same bytes.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Directory to write the files into (created if missing).", valueName: "dir"))
    var out: String

    @Option(name: .long, help: "Users acquired from networks and organically (invited users come on top).")
    var users: Int = 10_000

    @Option(name: .long, help: "Days of data to generate.")
    var days: Int = 30

    @Option(name: .long, help: "Random seed: the same seed and arguments write the same bytes.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "File format: csv (with a header row) or ndjson.")
    var format: GeneratorFormat = .csv

    @Flag(name: .long, help: "Write ad spend by hour of day (the hour field, UTC) with a planted peak-hour CPI inflation.")
    var hourlySpend = false
    @Flag(name: .long, help: "Compress every file with gzip (.gz).")
    var gzip = false

    @Flag(name: .long, help: "Add invalid rows of every defect kind (counted in truth.json) to test validation.")
    var dirty = false

    @Option(name: .customLong("app-id"), help: "The app_id written on every row.")
    var appID = "com.example.app"

    @Option(name: .long, help: ArgumentHelp("First day of data (UTC).", valueName: "yyyy-mm-dd"))
    var start = "2024-05-01"

    @Option(name: .customLong("ltv-shape"), help: ArgumentHelp(
        "When payers' purchases fall after install: saturating (most value in the first months), power-law (revenue grows as (day+1)^0.5) or front-loaded-linear (a large day 0, then linear).",
        valueName: "shape"))
    var ltvShape: LTVShape = .saturating

    var options: GeneratorOptions {
        GeneratorOptions(outputDirectory: out, users: users, days: days, seed: seed, format: format, gzip: gzip,
                         dirty: dirty, appID: appID, startDate: start, ltvShape: ltvShape, hourlySpend: hourlySpend)
    }

    func validate() throws {
        if out.isEmpty { throw ValidationError("--out must name a directory") }
        if let problem = options.problem { throw ValidationError(problem) }
    }

    func run() throws {
        let result: GenerationResult
        do {
            result = try Generator.run(options)
        } catch let error as GeneratorError {
            throw CommandFailure(error.description)
        }
        var lines = ["Wrote \(result.files.count) files to \(out):"]
        let width = result.files.map(\.name.count).max() ?? 0
        for file in result.files {
            let dirty = file.dirtyRows > 0 ? " (\(file.dirtyRows) invalid)" : ""
            lines.append("  \(file.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(file.rows) rows\(dirty)")
        }
        let truth = result.truth
        lines.append("Users: \(truth.totals.acquiredUsers) acquired + \(truth.totals.invitedUsers) invited; \(result.totalRows) rows in all.")
        lines.append("Ground truth: \(result.truthPath)")
        lines.append("Next: funnel ingest \(out)")
        print(lines.joined(separator: "\n"))
    }
}
