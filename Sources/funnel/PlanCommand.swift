import ArgumentParser
import Foundation
import FunnelCompute
import FunnelPipeline

/// `funnel plan`: where to put a daily budget across the paid networks (docs/metrics.md, "Budget plan").
struct PlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Plan the daily spend per paid network for a budget or a target ROAS.",
        discussion: """
        With --budget AMOUNT (USD a day), the spend per paid network that maximises projected \
        revenue at the horizon for that budget, from each network's response curve and projected \
        LTV: the marginal returns are equalised across the networks not at a bound. With \
        --target-roas R, each network is spent up to where the revenue of its next dollar falls to R. \
        Beside each line: today's spend, the planned one, expected installs, CPI and ROAS at the \
        plan with an interval. A network without a curve stays at today's spend; none goes past 3x \
        its largest day seen. With --by campaign, each campaign with spend (network/campaign) on its \
        own curve and its LTV pooled toward its network. Reads the marts 'funnel compute' writes.
        """
    )

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var logging: LoggingOptions

    @Option(help: ArgumentHelp("Daily budget in USD to split across the paid networks.", valueName: "amount"))
    var budget: Double?

    @Option(name: .customLong("target-roas"), help: ArgumentHelp("Spend each network up to where its marginal ROAS meets this (1 = break even).", valueName: "roas"))
    var targetROAS: Double?

    @Option(help: ArgumentHelp("Horizon of the projected revenue: D90, D180 or D365 (the [ltv] horizons), or an observed day.", valueName: "day"))
    var horizon = "D180"

    @Option(parsing: .singleValue, help: ArgumentHelp("A network's smallest daily spend (repeatable).", valueName: "network=amount"))
    var min: [String] = []

    @Option(parsing: .singleValue, help: ArgumentHelp("A network's largest daily spend (repeatable).", valueName: "network=amount"))
    var max: [String] = []

    @Option(name: .customLong("max-change"), help: ArgumentHelp("Largest step from today's spend per network, e.g. 20%.", valueName: "percent"))
    var maxChange: String?

    @Option(help: ArgumentHelp("Output format: text, csv or json.", valueName: "format"))
    var format = "text"

    @Option(help: ArgumentHelp("The app to plan (needed when several apps have data).", valueName: "app-id"))
    var app: String?

    @Option(help: ArgumentHelp("Plan per campaign ('campaign'): each campaign with spend, named network/campaign in --min and --max.", valueName: "campaign"))
    var by: String?

    var horizonDay: Int? {
        let digits = horizon.uppercased().hasPrefix("D") ? String(horizon.dropFirst()) : horizon
        return Int(digits).flatMap { $0 >= 0 ? $0 : nil }
    }

    static func amounts(_ values: [String], flag: String) throws -> [String: Double] {
        var amounts: [String: Double] = [:]
        for value in values {
            let parts = value.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, let amount = Double(parts[1]), amount >= 0, amount.isFinite else {
                throw ValidationError("\(flag) \(value): expected NETWORK=AMOUNT (USD a day, at least 0), e.g. \(flag) adnova=150")
            }
            amounts[parts[0]] = amount
        }
        return amounts
    }

    var change: Double? {
        guard let maxChange else { return nil }
        let trimmed = maxChange.hasSuffix("%") ? String(maxChange.dropLast()) : maxChange
        return Double(trimmed).flatMap { $0 >= 0 && $0.isFinite ? $0 / 100 : nil }
    }

    func validate() throws {
        switch (budget, targetROAS) {
        case (nil, nil): throw ValidationError("say what to plan for: --budget AMOUNT (USD a day) or --target-roas R")
        case (.some, .some): throw ValidationError("--budget and --target-roas are two plans: give one of them")
        case (.some(let amount), nil) where !(amount > 0 && amount.isFinite):
            throw ValidationError("--budget \(amount): expected a daily amount in USD above 0")
        case (nil, .some(let roas)) where !(roas > 0 && roas.isFinite):
            throw ValidationError("--target-roas \(roas): expected a ROAS above 0 (1 = break even)")
        default: break
        }
        if horizonDay == nil { throw ValidationError("--horizon \(horizon): expected a day such as D180 (D90, D180 or D365)") }
        if maxChange != nil, change == nil { throw ValidationError("--max-change \(maxChange ?? ""): expected a percentage such as 20%") }
        if let by, by != "campaign" { throw ValidationError("--by \(by): only --by campaign plans below the network") }
        if !["text", "csv", "json"].contains(format) { throw ValidationError("--format \(format): use text, csv or json") }
        let lows = try Self.amounts(min, flag: "--min"), highs = try Self.amounts(max, flag: "--max")
        for (name, low) in lows.sorted(by: { $0.key < $1.key }) {
            if let high = highs[name], high < low {
                throw ValidationError("--min \(name)=\(low) is above --max \(name)=\(high)")
            }
        }
    }

    func run() throws {
        let logger = logging.bootstrap(label: "funnel.plan")
        let (connection, _) = try database.connectMigrated(logger: logger)
        let goal: PlanJob.Goal = budget.map { .budget($0) } ?? .targetROAS(targetROAS ?? 1)
        let request = PlanJob.Request(
            app: app, goal: goal, horizon: horizonDay ?? 180,
            bounds: SpendPlanInputs.Bounds(minimum: try Self.amounts(min, flag: "--min"),
                                           maximum: try Self.amounts(max, flag: "--max"), maxChange: change),
            format: format, byCampaign: by == "campaign")
        print(try PlanJob.run(request, connection: connection), terminator: "")
    }
}
