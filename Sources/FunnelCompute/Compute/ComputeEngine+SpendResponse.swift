import Foundation
import FunnelCore
import PostgresClient

extension ComputeEngine {
    /// Days of spend whose mean is a network's current daily spend.
    static let currentSpendDays = 14
    /// Headroom further than this multiple of the largest daily spend seen (or below the smallest
    /// divided by it) is not reported: the curve is not known there.
    static let headroomReach = 3.0

    /// Fits each paid network's response curve and finds its inflated days (`SpendResponse`) from
    /// the per-network daily rows of fct_cpi, and writes fct_spend_response and
    /// fct_cpi_inflated_days (migrations 0110, 0112), with the headroom against fct_networks'
    /// projected LTV_D180. The same curve is fitted per campaign and per country of a network that
    /// has at least two with spend (`segmentHistories`); a segment without enough history gets
    /// status 'not enough data'. Inflated days are stored for networks only. Rebuilt whole on every
    /// run: a network has at most a row a day.
    func buildSpendResponse(_ connection: PostgresConnection) throws {
        try connection.execute("delete from fct_spend_response; delete from fct_cpi_inflated_days")
        let rows = try connection.query("""
            with paid as (
                select app_id, network from fct_cpi
                where campaign = 'all' and country = 'all' and network <> 'all'
                group by app_id, network having sum(spend) > 0
            ), cells as (
                select c.* from fct_cpi c join paid p on p.app_id = c.app_id and p.network = c.network
                where c.campaign <> 'all' and c.country <> 'all'
            ), segments as (
                select app_id, network, 'all' as campaign, 'all' as country, date, spend, paid_installs
                from fct_cpi c
                where c.campaign = 'all' and c.country = 'all'
                  and (c.app_id, c.network) in (select app_id, network from paid)
                union all
                select app_id, network, campaign, 'all', date, sum(spend), sum(paid_installs)
                from cells group by app_id, network, campaign, date
                union all
                select app_id, network, 'all', country, date, sum(spend), sum(paid_installs)
                from cells group by app_id, network, country, date
            ), kept as (
                -- a campaign or country with spend, of a network with at least two of them
                select s.* from segments s
                where (s.campaign = 'all' and s.country = 'all')
                   or exists (select 1 from segments o
                              where o.app_id = s.app_id and o.network = s.network and o.spend > 0
                                and ((s.campaign <> 'all' and o.campaign <> 'all' and o.campaign <> s.campaign)
                                  or (s.country <> 'all' and o.country <> 'all' and o.country <> s.country)))
                      and exists (select 1 from segments o
                                  where o.app_id = s.app_id and o.network = s.network and o.campaign = s.campaign
                                    and o.country = s.country and o.spend > 0)
            )
            select app_id, network, campaign, country, (date - date '1970-01-01')::integer,
                   extract(isodow from date)::integer - 1, spend::double precision, paid_installs::bigint
            from kept
            order by 1, 2, 3, 4, 5
            """)
        var histories: [(app: String, network: String, campaign: String, country: String, days: [SpendDay])] = []
        for row in rows {
            let key = (try row.decode(String.self, at: 0), try row.decode(String.self, at: 1),
                       try row.decode(String.self, at: 2), try row.decode(String.self, at: 3))
            let day = SpendDay(day: try row.decode(Int.self, at: 4), weekday: try row.decode(Int.self, at: 5),
                               spend: try row.decode(Double.self, at: 6), installs: Double(try row.decode(Int.self, at: 7)))
            if let last = histories.last, (last.app, last.network, last.campaign, last.country) == key {
                histories[histories.count - 1].days.append(day)
            } else {
                histories.append((key.0, key.1, key.2, key.3, [day]))
            }
        }
        var ltvs: [String: Double] = [:]
        for row in try connection.query("select app_id, network, ltv_projected_d180::double precision from fct_networks") {
            if let ltv = try row.decode(Double?.self, at: 2) {
                ltvs[try row.decode(String.self, at: 0) + "\u{1}" + (try row.decode(String.self, at: 1))] = ltv
            }
        }
        for history in histories {
            let isNetwork = history.campaign == "all" && history.country == "all"
            let analysis = SpendResponse.analyse(history.days)
            let flagged = Set(analysis.inflated.map(\.day.day))
            for inflated in analysis.inflated where isNetwork {
                try connection.query("""
                    insert into fct_cpi_inflated_days (app_id, network, date, spend, paid_installs, cpi, expected_cpi,
                                                       robust_z, excess_cost)
                    values ($1, $2, date '1970-01-01' + $3::integer, round($4::numeric, 6), $5, round($6::numeric, 6),
                            round($7::numeric, 6), $8, round($9::numeric, 6))
                    """, [history.app, history.network, inflated.day.day, inflated.day.spend, Int(inflated.day.installs),
                          inflated.day.cpi, inflated.expectedCPI, inflated.robustZ, inflated.excessCost])
            }
            let ltv = ltvs[history.app + "\u{1}" + history.network]
            let row = SpendResponseRow(history.days, outcome: analysis.outcome, ltv: ltv,
                                       currentDays: Self.currentSpendDays, reach: Self.headroomReach)
            let curve = analysis.outcome.curve
            let status = curve != nil ? "fitted" : isNetwork ? "not enough spend history" : "not enough data"
            try connection.query("""
                insert into fct_spend_response (app_id, network, campaign, country, status, days, exponent_b,
                    exponent_b_low, exponent_b_high, exponent_b_se, scale_a, r_squared, current_spend, average_cpi,
                    marginal_cpi, ltv_d180, headroom_spend, max_spend, saturated, inflated_days, advice, curve_form,
                    saturating_capacity, saturating_half_spend, aic_power_law, aic_saturating, exponent_b_se_ordinary)
                values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, round($13::numeric, 6), round($14::numeric, 6),
                        round($15::numeric, 6), round($16::numeric, 6), round($17::numeric, 6), round($18::numeric, 6),
                        $19, $20, $21, $22, $23, $24, $25, $26, $27)
                """, [history.app, history.network, history.campaign, history.country, status,
                      history.days.filter(\.isUsable).count, curve?.estimatedB, curve?.low, curve?.high,
                      curve?.standardError, curve?.a, curve?.rSquared, row.currentSpend, row.averageCPI,
                      row.marginalCPI, ltv, row.headroomSpend, row.maxSpend, row.saturated, flagged.count, row.advice,
                      curve?.form.rawValue, curve?.saturating?.capacity, curve?.saturating?.halfSaturationSpend,
                      curve?.aicPowerLaw, curve?.saturating?.aic, curve?.ordinaryStandardError])
        }
    }
}

/// The figures of one network's fct_spend_response row, from its history and curve.
struct SpendResponseRow {
    var currentSpend: Double?
    var averageCPI: Double?
    var marginalCPI: Double?
    var headroomSpend: Double?
    var maxSpend: Double?
    var saturated: Bool?
    var advice: String

    init(_ days: [SpendDay], outcome: SpendResponseOutcome, ltv: Double?, currentDays: Int, reach: Double) {
        guard case .fitted(let fit) = outcome else {
            if case .notEnoughHistory(let reason) = outcome { advice = reason } else { advice = "" }
            return
        }
        let recent = days.filter { $0.spend > 0 }.suffix(currentDays)
        let spend = recent.reduce(0) { $0 + $1.spend }
        let installs = recent.reduce(0) { $0 + $1.installs }
        let current = spend / Double(recent.count)
        let marginal = fit.marginalCPI(spend: current)
        let average = installs > 0 ? spend / installs : fit.expectedCPI(spend: current)
        let largest = days.map(\.spend).max() ?? current
        currentSpend = current
        averageCPI = average
        marginalCPI = marginal
        maxSpend = largest
        let isSaturated = marginal >= SpendResponse.saturationRatio * average && (fit.form == .saturating || fit.high < 1)
        saturated = isSaturated
        let prefix = isSaturated ? "saturated, marginal CPI \(money(marginal)) vs average \(money(average)); " : ""
        guard let ltv, ltv > 0 else {
            advice = prefix + "marginal CPI \(money(marginal)) at \(money(current)) a day (average \(money(average))); "
                + "no projected LTV_D180 to set the headroom against"
            return
        }
        let smallest = days.filter { $0.spend > 0 }.map(\.spend).min() ?? current
        guard let headroom = fit.spend(whereMarginalCPIReaches: ltv), headroom <= reach * largest,
              headroom >= smallest / reach else {
            advice = prefix + (marginal < ltv
                ? "marginal CPI \(money(marginal)) stays under the projected D180 LTV \(money(ltv)) up to "
                    + "\(money(reach * largest)) a day (\(Int(reach))x the largest day seen); raise spend in steps and look again"
                : "marginal CPI \(money(marginal)) is above the projected D180 LTV \(money(ltv)) at every spend seen "
                    + "(down to \(money(smallest)) a day)")
            return
        }
        headroomSpend = headroom
        if headroom > 1.1 * current {
            advice = prefix + "raise spend from \(money(current)) to about \(money(headroom)) a day, where the marginal CPI "
                + "meets the projected D180 LTV \(money(ltv))"
        } else if headroom < 0.9 * current {
            advice = prefix + "lower spend from \(money(current)) to about \(money(headroom)) a day: above it the marginal "
                + "CPI (now \(money(marginal))) exceeds the projected D180 LTV \(money(ltv))"
        } else {
            advice = prefix + "\(money(current)) a day is about where the marginal CPI (\(money(marginal))) meets the "
                + "projected D180 LTV \(money(ltv)): keep it"
        }
    }
}

private func money(_ value: Double) -> String { String(format: "$%.2f", value) }
