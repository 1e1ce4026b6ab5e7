import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Writes fct_networks' verdict and reason (`NetworkVerdict`, docs/metrics.md "Verdict") from
    /// the network's figures in fct_networks, its response curve in fct_spend_response (the
    /// marginal CPI at today's spend and the headroom) and the pace of its installs over the last
    /// `NetworkVerdict.paceDays` days of int_cohort_rollup. The row of all networks is decided on
    /// the paid networks' LTV_D180 (`NetworkVerdict.paidTotal`). Runs after the spend response.
    func buildVerdicts(_ connection: PostgresConnection) throws {
        let settings = try connection.query("""
            select double_down_ratio::float8, cut_ratio::float8, min_installs, min_payers
            from compute_settings where app_id = ''
            """)
        guard let setting = settings.rows.first else { return }
        let rule = NetworkVerdict.Rule(scaleRatio: try setting.decode(Double.self, at: 0),
                                       cutRatio: try setting.decode(Double.self, at: 1),
                                       minInstalls: try setting.decode(Int.self, at: 2),
                                       minPayers: try setting.decode(Int.self, at: 3))
        let rows = try connection.query(SQLCatalog.text("marts/metrics/fct_networks.verdict_inputs.sql"),
                                        [NetworkVerdict.paceDays])
        var byApp: [(app: String, inputs: [NetworkVerdict.Inputs])] = []
        for row in rows {
            let app = try row.decode(String.self, at: 0)
            let installs = try row.decode(Int.self, at: 2), payers = try row.decode(Int.self, at: 4)
            let recent = Double(try row.decode(Int.self, at: 16)) / Double(NetworkVerdict.paceDays)
            var curve: NetworkVerdict.Curve?
            if try row.decode(String?.self, at: 11) == "fitted", let current = try row.decode(Double?.self, at: 12),
               let marginal = try row.decode(Double?.self, at: 13) {
                curve = NetworkVerdict.Curve(currentSpend: current, marginalCPI: marginal,
                                             headroomSpend: try row.decode(Double?.self, at: 14))
            }
            let network = try row.decode(String.self, at: 1)
            let input = NetworkVerdict.Inputs(
                network: network, installs: installs, paidInstalls: try row.decode(Int.self, at: 3), payers: payers,
                spend: try row.decode(Double.self, at: 5), cpi: try row.decode(Double?.self, at: 6),
                ltv: try row.decode(Double?.self, at: 7), ltvLow: try row.decode(Double?.self, at: 8),
                ltvHigh: try row.decode(Double?.self, at: 9), ltvProjected: try row.decode(Bool.self, at: 10),
                curve: curve, noCurveReason: curve == nil ? try row.decode(String?.self, at: 15) : nil,
                installsPerDay: recent, payersPerDay: installs > 0 ? recent * Double(payers) / Double(installs) : 0,
                lastDay: try row.decode(Int?.self, at: 18), firstDay: try row.decode(Int?.self, at: 17),
                isTotal: network == "all")
            if let last = byApp.last, last.app == app {
                byApp[byApp.count - 1].inputs.append(input)
            } else {
                byApp.append((app, [input]))
            }
        }
        for (app, inputs) in byApp {
            let paid = NetworkVerdict.paidTotal(inputs)
            for var input in inputs {
                if input.isTotal {
                    input.ltv = paid?.ltv
                    input.ltvLow = paid?.low
                    input.ltvHigh = paid?.high
                    input.ltvProjected = paid?.projected ?? true
                    input.noCurveReason = "curves are per network"
                }
                let outcome = NetworkVerdict.decide(input, rule: rule)
                try connection.query("update fct_networks set verdict = $3, reason = $4 where app_id = $1 and network = $2",
                                     [app, input.network, outcome.verdict, outcome.reason])
            }
        }
    }
}
