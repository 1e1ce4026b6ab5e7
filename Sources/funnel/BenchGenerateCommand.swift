import ArgumentParser
import FunnelBench
import FunnelGenerate
import FunnelPipeline

/// `funnel bench generate`: generator throughput beside the raw write speed of the same bytes.
struct BenchGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Measure `funnel generate` (rows/s, MB/s) beside copying the same bytes on the same disk."
    )

    @Option(name: .long, help: "Users to generate.")
    var users: Int = 200_000

    @Option(name: .long, help: "Days of data to generate.")
    var days: Int = 30

    func validate() throws {
        if users < 1 { throw ValidationError("--users must be at least 1") }
        if days < 1 || days > 730 { throw ValidationError("--days must be between 1 and 730") }
    }

    func run() throws {
        do {
            print(try GeneratorBenchmark.run(users: users, days: days).summary)
        } catch let error as GeneratorError {
            throw CommandFailure(error.description)
        }
    }
}
