import Foundation
import FunnelCore

/// The HTML report: one self-contained file (inline CSS and SVG, no external fetches), fluid
/// widths for laptops and phones, every chart with a `<title>` and an `aria-label`, and colours
/// with sufficient contrast; meaning is always in text too (verdict words, numbers on bars).
public enum HTMLRenderer {
    public static func render(_ report: Report) -> String {
        var body = "<header><h1>funnel report\(report.scope.app.map { ": " + escape($0) } ?? "")</h1>"
        var facts: [String] = []
        if report.scope.from != nil || report.scope.to != nil {
            facts.append("cohorts \(report.scope.from ?? "start") to \(report.scope.to ?? "latest")")
        }
        if let through = report.scope.dataThroughDate { facts.append("data through \(through)") }
        if let computed = report.scope.computedAt { facts.append("computed \(computed)") }
        body += "<p class=\"meta\">\(escape(facts.joined(separator: " · ")))</p>"
        if let configuration = report.scope.configuration {
            let main = [("time zone", "time_zone"), ("day rule", "day_rule"), ("revenue share", "revenue_share")]
                .compactMap { label, key in configuration.value(key).map { "\(label) \($0)" } }
            body += "<p class=\"meta\">Computed under \(escape(configuration.sourceLabel)): \(escape(main.joined(separator: ", "))) "
                + "(every setting under Configuration).</p>"
        }
        body += "</header>"
        if !report.hasData {
            body += "<section><h2>No data to report yet</h2>"
                + report.scope.nextSteps.map { "<p>\(escape($0))</p>" }.joined() + "</section>"
            return page(body)
        }
        body += summary(report)
        body += section("Networks", table(
            ["network", "installs", "spend", "CPI", "LTV D7", "LTV D30", "D180 projected", "ROAS D7", "ROAS D30", "payback", "verdict", "why"],
            report.networks.map { row in
                [row.network, Formatting.grouped(row.installs), Formatting.money(row.spend), Formatting.money(row.cpi),
                 Formatting.money(row.ltvD7), Formatting.money(row.ltvD30),
                 "\(Formatting.money(row.ltvProjectedD180)) [\(Formatting.money(row.ltvD180Low))–\(Formatting.money(row.ltvD180High))]",
                 Formatting.percent(row.roasD7), Formatting.percent(row.roasD30),
                 row.paybackDay.map { "day \($0)" + (row.paybackBasis == "projected" ? " (projected)" : "") }
                    ?? Formatting.paybackBeyond(row.paybackBasis) ?? Formatting.missing,
                 Recommendations.label(row.verdict), row.reason]
            }))
        let campaigns = report.campaigns.filter { $0.level != "network" }
        if !campaigns.isEmpty {
            body += section("Campaigns", "<p>LTV and ROAS are chained (they never fall but by refunds); D180 is the "
                + "network's projection scaled by the campaign's LTV D7 pooled toward its network, and own is the weight "
                + "of the campaign's own cohorts in it.</p>" + table(
                ["campaign", "paid installs", "spend", "CPI", "LTV D7", "LTV D30", "ROAS D7", "ROAS D30", "D180 pooled",
                 "own", "payback", "verdict", "why"],
                campaigns.map { row in
                    [row.label, Formatting.grouped(row.paidInstalls), Formatting.money(row.spend), Formatting.money(row.cpi),
                     Formatting.money(row.ltvD7), Formatting.money(row.ltvD30), Formatting.percent(row.roasD7),
                     Formatting.percent(row.roasD30),
                     "\(Formatting.money(row.ltvProjectedD180)) [\(Formatting.money(row.ltvD180Low))–\(Formatting.money(row.ltvD180High))]",
                     Formatting.percent(row.poolingWeight),
                     row.paybackDay.map { "day \($0)" + (row.paybackBasis == "projected" ? " (projected)" : "") }
                        ?? Formatting.paybackBeyond(row.paybackBasis) ?? Formatting.missing,
                     Recommendations.label(row.verdict), row.reason]
                }, collapsed: campaigns.count > 12))
        }
        if let sentence = PlanRendering.sentence(report.plan) {
            body += section("Plan", "<p>\(escape(sentence))</p>" + table(PlanRendering.header(report.plan),
                                                                        PlanRendering.rows(report.plan)))
        }
        body += section("Revenue (days 0 to max_day, USD × revenue share; refunds netted)", table(
            ["network", "gross", "refunds", "refunded", "net"],
            report.networks.map { row in
                [row.network, Formatting.money(row.grossRevenue),
                 Formatting.grouped(row.refunds), Formatting.money(row.refunded), Formatting.money(row.netRevenue)]
            }))
        body += section("Funnel", Charts.funnel(report.funnel.filter {
            $0.funnel == "default" && $0.network == "all" && $0.campaign == "all" && $0.country == "all" && $0.platform == "all"
        }) + table(["funnel", "breakdown", "step", "users", "from previous", "from first", "median time"], report.funnel.map { row in
            let breakdown = row.splitLabel
            return [row.funnel, breakdown.isEmpty ? "all" : breakdown, row.step, Formatting.grouped(row.users),
                    Formatting.percent(row.conversionFromPrevious), Formatting.percent(row.conversionFromFirst),
                    Formatting.duration(row.medianSecondsToConvert)]
        }, collapsed: report.funnel.count > 10))
        body += section("Retention", Charts.retentionHeatMap(report.retention.filter { $0.mode == "classic" && $0.network == "all" })
            + table(["network", "day", "cohorts", "users", "retained", "rate"],
                    report.retentionSummary.filter { $0.mode == "classic" }.map {
                        [$0.network, "D\($0.day)", String($0.cohorts), Formatting.grouped($0.cohortSize),
                         Formatting.grouped($0.retained), Formatting.percent($0.rate)]
                    }))
        let custom = report.customRetention.filter { $0.network == "all" && $0.measure != "rolling" && $0.lastPeriod > 0 }
        if !custom.isEmpty {
            body += section("Retention definitions", table(["retention", "measure", "periods", "cohorts", "users", "retained", "rate"],
                custom.map {
                    [$0.retention, $0.measure, $0.firstPeriod == $0.lastPeriod ? "P\($0.firstPeriod)" : "P\($0.firstPeriod)-\($0.lastPeriod)",
                     String($0.cohorts), Formatting.grouped($0.cohortSize), Formatting.grouped($0.retained), Formatting.percent($0.rate)]
                }, collapsed: custom.count > 10))
        }
        let cpiByNetwork = Dictionary(report.networks.map { ($0.network, $0.cpi) }, uniquingKeysWith: { a, _ in a })
        let ltvNetworks = report.ltv.map(\.network).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        body += section("LTV against CPI", "<div class=\"grid\">" + ltvNetworks.map { network in
            Charts.ltvCurve(network: network, points: report.ltv.filter { $0.network == network }, cpi: cpiByNetwork[network] ?? nil)
        }.joined() + "</div><p class=\"note\">Solid: observed LTV (each day adds the revenue per install of the cohorts "
            + "mature for it, so the curve cannot fall; it stops where fewer than 10% of the installs back a day). "
            + "Dashed: projected, with its interval as a band. Horizontal line: CPI.</p>"
            + projectionTables(report))
        body += section("Spend and CPI", table(["network", "spend", "installs", "paid", "CPI", "blended CPI", "CTR", "IPM"],
            report.cpiTotals.map {
                [$0.network, Formatting.money($0.spend), Formatting.grouped($0.installs), Formatting.grouped($0.paidInstalls),
                 Formatting.money($0.cpi), Formatting.money($0.blendedCpi), Formatting.percent($0.ctr), Formatting.ratio($0.ipm)]
            }))
        body += spendResponseSection(report)
        if report.kfactor.isEmpty, let matures = report.kfactorMatures {
            body += section("Invites (k-factor)", "<p>\(escape(TextRenderer.kfactorMaturity(matures)))</p>")
        } else {
            body += section("Invites (k-factor)", table(["network", "users", "invites", "viral installs", "k", "amplification", "CPI", "viral-adjusted CPI"],
                report.kfactor.map {
                    [$0.network, Formatting.grouped($0.cohortSize), Formatting.grouped($0.invitesSent), Formatting.grouped($0.viralInstalls),
                     Formatting.ratio($0.kFactor, digits: 3), Formatting.ratio($0.amplification), Formatting.money($0.cpi),
                     Formatting.money($0.viralAdjustedCpi)]
                }) + "<p class=\"note\">k: viral installs per cohort user. Amplification: installs per paid install once the "
                + "invites' installs are counted, 1/(1-k). Viral-adjusted CPI = CPI / amplification.</p>")
        }
        body += section("Onboarding friction", report.friction.status == .notComputed
            ? "<p>Not computed yet: ingest UI telemetry (ux files), then run funnel compute.</p>"
            : table(["screen", "friction", "users hit", "drop-off hit", "drop-off not hit", "relative risk", "q", "users lost", "flagged"],
                    report.friction.rows.map {
                        [$0.screen, $0.frictionType, Formatting.grouped($0.usersHit), Formatting.percent($0.dropoffHit),
                         Formatting.percent($0.dropoffNotHit), Formatting.ratio($0.relativeRisk), Formatting.pValue($0.qValue),
                         Formatting.wholeUsers($0.usersLost), $0.flagged ? "flagged" : "no"]
                    }) + "<p class=\"note\">Drop-off hit / not hit: onboarding drop-off of the users who met the friction / "
                    + "did not. Relative risk = drop-off hit / drop-off not hit. q: the p-value adjusted for testing every "
                    + "(screen, friction) pair at once (Benjamini-Hochberg). Users lost = users hit × (drop-off hit − drop-off "
                    + "not hit). Flagged: relative risk above 1, q ≤ 0.05 and enough users hit.</p>")
        if !report.scope.notes.isEmpty {
            body += section("Notes", report.scope.notes.map { "<p>\(escape($0))</p>" }.joined())
        }
        if let configuration = report.scope.configuration {
            body += section("Configuration", "<p class=\"note\">From \(escape(configuration.sourceLabel)), used by the compute of "
                + "\(escape(configuration.recordedAt)).</p>"
                + table(["setting", "value"], configuration.settings.map { [$0.key, $0.value] }))
        }
        return page(body)
    }

    private static func summary(_ report: Report) -> String {
        let advice = Recommendations(report)
        var items = advice.actions.map { action in
            "<li><strong class=\"v-\(action.verdict.replacingOccurrences(of: " ", with: "-"))\">\(escape(action.verdict.capitalized))"
                + "</strong> \(escape(action.sentence))</li>"
        }
        if advice.actions.isEmpty { items.append("<li>No paid network has a verdict yet.</li>") }
        items += advice.campaignActions.map { action in
            "<li><strong class=\"v-\(action.verdict.replacingOccurrences(of: " ", with: "-"))\">Campaign: "
                + "\(escape(action.verdict.capitalized))</strong> \(escape(action.sentence))</li>"
        }
        for row in advice.topFriction {
            items.append("<li><strong>Friction</strong> \(escape(row.screen)) / \(escape(row.frictionType)): "
                + "\(Formatting.wholeUsers(row.usersLost)) users lost. Next: fix this screen first.</li>")
        }
        if report.friction.status == .notComputed { items.append("<li>Friction: not computed yet.</li>") }
        return section("What to do", "<ul>" + items.joined() + "</ul><p class=\"note\">Days are counted as "
            + escape(report.scope.dayRuleLabel) + ". Immature values are shown as “-”, never 0.</p>")
    }

    /// The projection per network (method, back-test error, interval coverage) and every
    /// method's back-test per horizon.
    private static func projectionTables(_ report: Report) -> String {
        let models = report.ltvModels.map { row -> [String] in
            let coverage = row.intervalCoverage.map { "\(Formatting.percent($0)) of \(row.coveragePoints ?? 0)" }
            return [row.network, row.method ?? Formatting.missing, Formatting.percent(row.backtestError),
                    coverage ?? Formatting.missing, row.projection ?? Formatting.missing, row.note]
        }
        let backtest = report.ltvBacktest.map { row -> [String] in
            [row.method, "D\(row.horizon)", String(row.points), Formatting.percent(row.meanAbsError), row.chosen ? "yes" : ""]
        }
        return table(["network", "projection", "back-test error", "interval coverage", "model", "note"], models)
            + table(["method", "horizon", "held-out values", "mean error", "chosen"], backtest)
    }

    private static func section(_ title: String, _ content: String) -> String {
        "<section><h2>\(escape(title))</h2>\(content)</section>"
    }

    private static func table(_ header: [String], _ rows: [[String]], collapsed: Bool = false) -> String {
        guard !rows.isEmpty else { return "<p>No rows.</p>" }
        let html = "<div class=\"scroll\"><table><thead><tr>" + header.map { "<th scope=\"col\">\(escape($0))</th>" }.joined()
            + "</tr></thead><tbody>" + rows.map { "<tr>" + $0.map { "<td>\(escape($0))</td>" }.joined() + "</tr>" }.joined()
            + "</tbody></table></div>"
        return collapsed ? "<details><summary>All rows (\(rows.count))</summary>\(html)</details>" : html
    }

    private static func page(_ body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>funnel report</title>
        <style>
        body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff;margin:0 auto;max-width:1100px;padding:1rem}
        h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;border-bottom:1px solid #ccc;margin-top:2rem}
        .meta,.note{color:#444}.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.9rem}
        th,td{padding:.25rem .5rem;border-bottom:1px solid #ddd;text-align:right}th:first-child,td:first-child{text-align:left}
        svg{width:100%;height:auto;max-width:100%}.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:1rem}
        .v-scale{color:#0b6b2e}.v-cut{color:#a4161a}.v-trim{color:#a4161a}.v-hold{color:#7a5200}
        </style></head><body>
        \(body)
        </body></html>

        """
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
