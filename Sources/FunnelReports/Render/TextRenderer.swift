import Foundation
import FunnelCore

/// The terminal report: at most 100 columns, the summary (what to do) first, details after.
/// Colour (ANSI) only when asked for (stdout is a terminal); every coloured word also says its
/// meaning in text, so nothing is lost without colour.
public enum TextRenderer {
    public static let width = 100

    public static func render(_ report: Report, colour: Bool = false) -> String {
        var out = TextBuilder(colour: colour)
        header(report, &out)
        guard report.hasData else {
            zeroState(report, &out)
            return out.text
        }
        summary(report, &out)
        networks(report, &out)
        campaigns(report, &out)
        plan(report, &out)
        funnel(report, &out)
        retention(report, &out)
        customRetention(report, &out)
        ltv(report, &out)
        spend(report, &out)
        spendResponse(report, &out)
        kfactor(report, &out)
        friction(report, &out)
        if !report.scope.notes.isEmpty {
            out.section("NOTES")
            for note in report.scope.notes { out.wrapped(note, indent: "  ", hanging: "    ") }
        }
        configuration(report, &out)
        return out.text
    }

    private static func header(_ report: Report, _ out: inout TextBuilder) {
        let scope = report.scope
        var title = "funnel report"
        if let app = scope.app { title += ": \(app)" }
        out.line(out.bold(title))
        var facts: [String] = []
        if scope.from != nil || scope.to != nil {
            facts.append("cohorts \(scope.from ?? "start")..\(scope.to ?? "latest")")
        }
        if let through = scope.dataThroughDate { facts.append("data through \(through)") }
        if let computed = scope.computedAt { facts.append("computed \(computed)") }
        if !facts.isEmpty { out.wrapped(facts.joined(separator: " | "), indent: "", hanging: "  ") }
        if let configuration = scope.configuration {
            let main = [("time zone", "time_zone"), ("day rule", "day_rule"), ("revenue share", "revenue_share")]
                .compactMap { label, key in configuration.value(key).map { "\(label) \($0)" } }
            out.wrapped("computed under \(configuration.sourceLabel): " + main.joined(separator: ", ")
                + " (every setting under CONFIGURATION)", indent: "", hanging: "  ")
        }
    }

    /// Every setting the data was computed under, and the file it came from.
    private static func configuration(_ report: Report, _ out: inout TextBuilder) {
        guard let configuration = report.scope.configuration else { return }
        out.section("CONFIGURATION")
        out.wrapped("from \(configuration.sourceLabel), used by the compute of \(configuration.recordedAt):", indent: "  ", hanging: "    ")
        // Settings packed into lines whole: a line never breaks inside "key = value".
        var line = "   "
        for setting in configuration.settings.map({ "\($0.key) = \($0.value)" }) {
            if line.count > 3, line.count + 2 + setting.count > TextRenderer.width {
                out.line(line + ";")
                line = "   "
            }
            line += (line.count > 3 ? "; " : " ") + setting
        }
        out.line(line)
    }

    private static func zeroState(_ report: Report, _ out: inout TextBuilder) {
        out.line("")
        out.line("No data to report yet.")
        for step in report.scope.nextSteps { out.wrapped(step, indent: "  ", hanging: "    ") }
    }

    private static func summary(_ report: Report, _ out: inout TextBuilder) {
        let advice = Recommendations(report)
        out.section("WHAT TO DO")
        if advice.actions.isEmpty {
            out.wrapped("No paid network has a verdict yet (no spend, or not enough mature cohorts).", indent: "  ", hanging: "  ")
        }
        for action in advice.actions {
            let tag = "[\(action.verdict.uppercased())]"
            let coloured = out.paint(tag, verdict: action.verdict)
            out.wrapped(action.sentence, indent: "  " + coloured + " ", hanging: "    ", indentWidth: tag.count + 3)
        }
        if !advice.campaignActions.isEmpty { out.line("  Campaigns (every campaign under CAMPAIGNS):") }
        for action in advice.campaignActions {
            let tag = "[\(action.verdict.uppercased())]"
            let coloured = out.paint(tag, verdict: action.verdict)
            out.wrapped(action.sentence, indent: "    " + coloured + " ", hanging: "      ", indentWidth: tag.count + 5)
        }
        switch report.friction.status {
        case .notComputed:
            out.line("  Friction: no results yet (ingest ux telemetry files, then run funnel compute).")
        case .computed where advice.topFriction.isEmpty:
            out.line("  Friction: nothing flagged (no significant drop-off linked to UI telemetry).")
        case .computed:
            out.line("  Top onboarding friction by users lost:")
            for (index, row) in advice.topFriction.enumerated() {
                out.wrapped("\(index + 1). \(row.screen) / \(row.frictionType): \(Formatting.wholeUsers(row.usersLost)) users "
                    + "lost; drop-off \(Formatting.percent(row.dropoffHit)) when hit vs "
                    + "\(Formatting.percent(row.dropoffNotHit)) (q \(Formatting.pValue(row.qValue))). Next: fix this screen first.",
                    indent: "    ", hanging: "       ")
            }
        }
        out.wrapped("Days are counted as \(report.scope.dayRuleLabel). Immature cells are blank ('-'), never 0.",
                    indent: "  ", hanging: "  ")
    }

    private static func networks(_ report: Report, _ out: inout TextBuilder) {
        guard !report.networks.isEmpty else { return }
        out.section("NETWORKS (projected D180 LTV vs CPI)")
        let columns = ["network", "installs", "spend", "CPI", "LTV D7", "LTV D30", "D180 proj", "ROAS D7", "ROAS D30", "payback", "verdict"]
        let rows = report.networks.map { row in
            [row.network, Formatting.grouped(row.installs), Formatting.money(row.spend), Formatting.money(row.cpi),
             Formatting.money(row.ltvD7), Formatting.money(row.ltvD30), Formatting.money(row.ltvProjectedD180),
             Formatting.percent(row.roasD7), Formatting.percent(row.roasD30),
             row.paybackDay.map { "d\($0)" + (row.paybackBasis == "projected" ? " (proj)" : "") }
                ?? Formatting.paybackBeyond(row.paybackBasis) ?? Formatting.missing,
             Recommendations.label(row.verdict)]
        }
        out.table(columns, rows)
        revenue(report, &out)
    }

    /// Money per campaign (and per campaign and country with --by country): chained LTV and
    /// ROAS, LTV_D180 pooled toward the network, payback and the verdict (docs/metrics.md,
    /// "Money by campaign").
    private static func campaigns(_ report: Report, _ out: inout TextBuilder) {
        let rows = report.campaigns
        guard rows.contains(where: { $0.level != "network" }) else { return }
        out.section("CAMPAIGNS (chained LTV and ROAS; D180 pooled toward the network)")
        let table = rows.map { row in
            [row.level == "network" ? row.network
                : row.level == "campaign" ? "  " + (row.campaign.isEmpty ? "(none)" : row.campaign)
                : "    " + (row.country.isEmpty ? "(no country)" : row.country),
             Formatting.grouped(row.paidInstalls), Formatting.money(row.spend), Formatting.money(row.cpi),
             Formatting.money(row.ltvD7), Formatting.percent(row.roasD7), Formatting.percent(row.roasD30),
             Formatting.money(row.ltvProjectedD180), Formatting.percent(row.poolingWeight),
             row.paybackDay.map { "d\($0)" + (row.paybackBasis == "projected" ? " (proj)" : "") }
                ?? Formatting.paybackBeyond(row.paybackBasis) ?? Formatting.missing,
             Recommendations.label(row.verdict)]
        }
        out.table(["campaign", "paid inst", "spend", "CPI", "LTV D7", "ROAS D7", "ROAS D30", "D180", "own",
                   "payback", "verdict"], table)
        out.wrapped("Each network, then its campaigns. own: the weight of the campaign's own cohorts in its LTV "
            + "(the rest is its network's). "
            + "Reasons in campaigns.csv and the JSON report.", indent: "  ", hanging: "  ")
    }

    /// Revenue per network over the days the LTV counts: purchases, refunds and what is left of
    /// them (docs/metrics.md, "Gross, refunds and net revenue").
    private static func revenue(_ report: Report, _ out: inout TextBuilder) {
        out.section("REVENUE (days 0 to max_day, USD x revenue share; refunds netted)")
        let rows = report.networks.map { row in
            [row.network, Formatting.money(row.grossRevenue),
             Formatting.grouped(row.refunds), Formatting.money(row.refunded), Formatting.money(row.netRevenue)]
        }
        out.table(["network", "gross", "refunds", "refunded", "net"], rows)
    }

    private static func plan(_ report: Report, _ out: inout TextBuilder) {
        guard let sentence = PlanRendering.sentence(report.plan) else { return }
        out.section("PLAN (daily spend per paid network)")
        out.wrapped(sentence, indent: "  ", hanging: "  ")
        out.table(PlanRendering.header(report.plan), PlanRendering.rows(report.plan))
    }

    private static func funnel(_ report: Report, _ out: inout TextBuilder) {
        guard !report.funnel.isEmpty else { return }
        let groups = Dictionary(grouping: report.funnel) { [$0.funnel, $0.splitLabel] }
        let keys = report.funnel.map { [$0.funnel, $0.splitLabel] }
            .reduce(into: [[String]]()) { if !$0.contains($1) { $0.append($1) } }
        out.section("FUNNEL")
        for key in keys {
            out.line("  \(key[0])" + (key[1].isEmpty ? " (all users)" : " - " + key[1]))
            let rows = (groups[key] ?? []).map { row in
                [row.step, Formatting.grouped(row.users), Formatting.percent(row.conversionFromPrevious),
                 Formatting.percent(row.conversionFromFirst), Formatting.duration(row.medianSecondsToConvert),
                 bar(row.conversionFromFirst, width: 20)]
            }
            out.table(["step", "users", "from prev", "from first", "median time", "reached"], rows, indent: "    ")
        }
    }

    private static func retention(_ report: Report, _ out: inout TextBuilder) {
        let classic = report.retentionSummary.filter { $0.mode == "classic" }
        guard !classic.isEmpty else { return }
        out.section("RETENTION (classic day N, over mature cohorts)")
        let days = Array(Set(classic.map(\.day))).sorted()
        let networks = classic.map(\.network).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let regular = Dictionary(report.regularUsers.map { ($0.network, $0.rate) }, uniquingKeysWith: { a, _ in a })
        let rows = networks.map { network in
            [network] + days.map { day in
                Formatting.percent(classic.first { $0.network == network && $0.day == day }?.rate)
            } + [Formatting.percent(regular[network] ?? nil)]
        }
        out.table(["network"] + days.map { "D\($0)" } + ["regular users"], rows)
        let brackets = report.retentionBrackets.filter { $0.network == "all" }
        if !brackets.isEmpty {
            out.line("  Bracket retention (all networks): "
                + brackets.map { "days \($0.bracket) \(Formatting.percent($0.rate))" }.joined(separator: ", "))
        }
    }

    /// The configured retentions, all networks: classic and rolling per period (up to 8 shown;
    /// the CSV and JSON have them all) and the brackets.
    private static func customRetention(_ report: Report, _ out: inout TextBuilder) {
        let rows = report.customRetention.filter { $0.network == "all" }
        guard !rows.isEmpty else { return }
        out.section("RETENTION DEFINITIONS ([[retention]], all networks, over mature cohorts)")
        let names = rows.map(\.retention).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for name in names {
            let own = rows.filter { $0.retention == name }
            let periods = Array(Set(own.filter { $0.measure == "classic" && $0.firstPeriod > 0 }.map(\.firstPeriod))).sorted().prefix(8)
            out.line("  \(name)")
            let table = ["classic", "rolling"].map { measure in
                [measure] + periods.map { period in
                    Formatting.percent(own.first { $0.measure == measure && $0.firstPeriod == period }?.rate)
                }
            }
            out.table(["retention"] + periods.map { "P\($0)" }, table, indent: "    ")
            let brackets = own.filter { $0.measure == "bracket" }
            if !brackets.isEmpty {
                out.line("    Brackets: " + brackets.map { "periods \($0.firstPeriod)-\($0.lastPeriod) \(Formatting.percent($0.rate))" }
                    .joined(separator: ", "))
            }
        }
    }

    private static func ltv(_ report: Report, _ out: inout TextBuilder) {
        guard !report.ltv.isEmpty else { return }
        out.section("LTV (observed, and projected with its interval)")
        let networks = report.ltv.map(\.network).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let horizons = Array(Set(report.ltv.filter(\.projected).map(\.day))).sorted()
        let rows = networks.map { network -> [String] in
            let points = report.ltv.filter { $0.network == network }
            let observed = points.filter { !$0.projected }
            // The last day a good share of the installs is mature for: later days rest on the
            // first few cohorts only, and their LTV says little about the network.
            let mostInstalls = observed.compactMap(\.installs).max() ?? 0
            let last = observed.filter { Double($0.installs ?? 0) >= 0.3 * Double(mostInstalls) }.max { $0.day < $1.day }
            var row = [network, Formatting.money(observed.first { $0.day == 7 }?.ltv),
                       Formatting.money(observed.first { $0.day == 30 }?.ltv),
                       last.map { "\(Formatting.money($0.ltv)) (d\($0.day))" } ?? Formatting.missing]
            for horizon in horizons {
                let point = points.first { $0.projected && $0.day == horizon }
                row.append(Formatting.money(point?.ltv))
                if horizon == 180 {
                    row.append(point.map { "\(Formatting.money($0.ltvLow))-\(Formatting.money($0.ltvHigh))" } ?? Formatting.missing)
                }
            }
            return row
        }
        out.table(["network", "D7", "D30", "latest"] + horizons.flatMap { $0 == 180 ? ["D180 proj", "D180 interval"] : ["D\($0) proj"] }, rows)
        out.line("  latest: the last observed day that at least 30% of the installs are mature for.")
        if let all = report.ltvModels.first(where: { $0.method != nil }) {
            var text = "Projection: \(all.method!)"
            if let error = all.backtestError {
                text += ", chosen by back-test (mean error \(Formatting.percent(error)) on \(all.network)'s "
                    + "\(all.backtestPoints ?? 0) held-out values)"
            }
            let horizons = Array(Set(report.ltvBacktest.map(\.horizon))).sorted()
            for horizon in horizons {
                let rows = report.ltvBacktest.filter { $0.horizon == horizon }
                text += "; back-test error at D\(horizon): "
                    + rows.map { "\($0.method) \(Formatting.percent($0.meanAbsError))" }.joined(separator: ", ")
            }
            if let coverage = all.intervalCoverage {
                text += "; the 80% intervals covered \(Formatting.percent(coverage)) of \(all.coveragePoints ?? 0) held-out values"
            }
            out.wrapped(text + ". " + all.note + ".", indent: "  ", hanging: "  ")
            for model in report.ltvModels where model.method != nil && model.method != all.method {
                out.wrapped("\(model.network): \(model.method!) (\(model.note)).", indent: "  ", hanging: "  ")
            }
        } else if let model = report.ltvModels.first {
            out.wrapped("Projection: none (\(model.note)).", indent: "  ", hanging: "  ")
        }
        let cut = networks.compactMap { network -> String? in
            let observed = report.ltv.filter { $0.network == network && !$0.projected }
            guard let lastShown = observed.filter(\.shown).map(\.day).max(),
                  let last = observed.map(\.day).max(), lastShown < last else { return nil }
            return "\(network) at day \(lastShown)"
        }
        if !cut.isEmpty {
            out.wrapped("Charts stop where fewer than 10% of the installs back a day: " + cut.joined(separator: ", ") + ".",
                        indent: "  ", hanging: "  ")
        }
    }

    private static func spend(_ report: Report, _ out: inout TextBuilder) {
        guard !report.cpiTotals.isEmpty else { return }
        out.section("SPEND AND CPI" + (report.scope.from != nil || report.scope.to != nil ? " (dates in range)" : ""))
        let rows = report.cpiTotals.map { row in
            [row.network, Formatting.money(row.spend), Formatting.grouped(row.installs), Formatting.grouped(row.paidInstalls),
             Formatting.money(row.cpi), Formatting.money(row.blendedCpi), Formatting.percent(row.ctr), Formatting.ratio(row.ipm)]
        }
        out.table(["network", "spend", "installs", "paid", "CPI", "blended CPI", "CTR", "IPM"], rows)
    }

    private static func kfactor(_ report: Report, _ out: inout TextBuilder) {
        guard !report.kfactor.isEmpty else {
            guard let matures = report.kfactorMatures else { return }
            out.section("INVITES (k-factor)")
            out.wrapped(Self.kfactorMaturity(matures), indent: "  ", hanging: "  ")
            return
        }
        out.section("INVITES (k-factor)")
        let rows = report.kfactor.map { row in
            [row.network, Formatting.grouped(row.cohortSize), Formatting.grouped(row.invitesSent),
             Formatting.grouped(row.viralInstalls), Formatting.ratio(row.kFactor, digits: 3),
             row.cycleTimeHours.map { String(format: "%.0f h", $0) } ?? Formatting.missing,
             Formatting.ratio(row.amplification), Formatting.money(row.cpi), Formatting.money(row.viralAdjustedCpi)]
        }
        out.table(["network", "users", "invites", "viral", "k", "cycle", "amplif.", "CPI", "viral-adj CPI"], rows)
        out.wrapped("k: viral installs per cohort user; cycle: median time from a user's install to their invitee's; "
            + "amplif.: amplification, installs per paid install with the invites' = 1/(1-k); viral-adj CPI = CPI / amplification.",
            indent: "  ", hanging: "  ")
    }

    /// The k-factor's "matures on DATE", shared with the HTML report.
    static func kfactorMaturity(_ matures: KFactorMaturity) -> String {
        "k-factor matures on \(matures.maturesOn): it counts install cohorts whose first \(matures.windowDays) days "
            + "([kfactor] window_days) have all happened, and the first cohort (\(matures.firstCohort)) has them with data "
            + "through \(matures.maturesOn)."
    }

    private static func friction(_ report: Report, _ out: inout TextBuilder) {
        out.section("ONBOARDING FRICTION")
        guard report.friction.status == .computed else {
            out.line("  Not computed yet: ingest UI telemetry (ux files), then run funnel compute.")
            return
        }
        guard !report.friction.rows.isEmpty else {
            out.line("  No UI telemetry (ux files) analysed yet: ingest ux files, then 'funnel compute'.")
            return
        }
        let rows = report.friction.rows.prefix(15).map { row in
            [row.screen, row.frictionType, Formatting.grouped(row.usersHit), Formatting.percent(row.dropoffHit),
             Formatting.percent(row.dropoffNotHit), Formatting.ratio(row.relativeRisk), Formatting.pValue(row.qValue),
             Formatting.wholeUsers(row.usersLost), row.flagged ? "FLAGGED" : "no"]
        }
        out.table(["screen", "friction", "hit", "drop hit", "drop not", "RR", "q", "lost", "flagged"], rows)
        out.wrapped("hit: users who met it; drop hit / drop not: onboarding drop-off of users who met it / did not; "
            + "RR: relative risk = drop hit / drop not; q: the p-value adjusted for testing every (screen, friction) pair "
            + "(Benjamini-Hochberg); lost: users hit x (drop hit - drop not); flagged: RR above 1, q <= 0.05 and enough "
            + "users hit (docs/metrics.md).", indent: "  ", hanging: "  ")
    }

    static func bar(_ fraction: Double?, width: Int) -> String {
        guard let fraction else { return "" }
        let filled = Int((max(0, min(1, fraction)) * Double(width)).rounded())
        return String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
    }
}
