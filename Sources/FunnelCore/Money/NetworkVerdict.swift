import Foundation
import FunnelCalendar

/// One verdict per paid network (docs/metrics.md, "Verdict"): scale, hold, trim or cut, from the
/// average return (LTV_D180 / CPI, with the LTV's interval) and the marginal one (LTV_D180 / the
/// marginal CPI at today's daily spend on the network's response curve), each with its reason in
/// numbers and a next step that goes the verdict's way: scale raises spend, trim and cut lower
/// it, hold keeps it. Thin data is "not enough data", saying what is missing and from when it
/// will be there; no spend is "n/a".
public enum NetworkVerdict {
    /// The marginal return must clear 1 by this share for a scale (>= 1.1) and fall short of it
    /// by as much for a trim (< 0.9): closer to 1, today's spend is about right.
    public static let marginalBand = 0.1
    /// The largest step a verdict suggests when the curve cannot say how far to go.
    public static let step = 0.2

    /// What a network's verdict is decided on.
    public struct Inputs: Sendable, Equatable {
        public var network: String
        public var installs: Int
        public var paidInstalls: Int
        public var payers: Int
        public var spend: Double
        public var cpi: Double?
        /// LTV_D180 and its interval (an observed value is its own interval).
        public var ltv: Double?
        public var ltvLow: Double?
        public var ltvHigh: Double?
        public var ltvProjected: Bool
        /// The response curve's figures at today's spend, when the network has a curve.
        public var curve: Curve?
        /// Why the network has no curve, when it has none (the spend response's reason).
        public var noCurveReason: String?
        /// Paid installs and payers a day over the last days of data, and the last data day (days
        /// since 1970-01-01), for the date by which a thin sample will be enough.
        public var installsPerDay: Double
        public var payersPerDay: Double
        public var lastDay: Int?
        /// The first install day: the date from which cohorts mature enough to project LTV_D180.
        public var firstDay: Int?
        /// The row of all networks: its LTV is the paid networks' (`NetworkVerdict.paidTotal`).
        public var isTotal: Bool

        public init(network: String, installs: Int, paidInstalls: Int, payers: Int, spend: Double, cpi: Double?,
                    ltv: Double?, ltvLow: Double?, ltvHigh: Double?, ltvProjected: Bool, curve: Curve? = nil,
                    noCurveReason: String? = nil, installsPerDay: Double = 0, payersPerDay: Double = 0,
                    lastDay: Int? = nil, firstDay: Int? = nil, isTotal: Bool = false) {
            self.network = network
            self.installs = installs
            self.paidInstalls = paidInstalls
            self.payers = payers
            self.spend = spend
            self.cpi = cpi
            self.ltv = ltv
            self.ltvLow = ltvLow
            self.ltvHigh = ltvHigh
            self.ltvProjected = ltvProjected
            self.curve = curve
            self.noCurveReason = noCurveReason
            self.installsPerDay = installsPerDay
            self.payersPerDay = payersPerDay
            self.lastDay = lastDay
            self.firstDay = firstDay
            self.isTotal = isTotal
        }
    }

    /// A response curve's figures at today's spend (fct_spend_response).
    public struct Curve: Sendable, Equatable {
        public var currentSpend: Double
        public var marginalCPI: Double
        /// The daily spend where the marginal CPI meets LTV_D180, when the curve knows it.
        public var headroomSpend: Double?

        public init(currentSpend: Double, marginalCPI: Double, headroomSpend: Double?) {
            self.currentSpend = currentSpend
            self.marginalCPI = marginalCPI
            self.headroomSpend = headroomSpend
        }
    }

    /// The thresholds and sample sizes of `[verdict]`.
    public struct Rule: Sendable, Equatable {
        public var scaleRatio: Double
        public var cutRatio: Double
        public var minInstalls: Int
        public var minPayers: Int

        public init(scaleRatio: Double = 1.5, cutRatio: Double = 0.7, minInstalls: Int = 100, minPayers: Int = 10) {
            self.scaleRatio = scaleRatio
            self.cutRatio = cutRatio
            self.minInstalls = minInstalls
            self.minPayers = minPayers
        }
    }

    /// A verdict and its reason.
    public struct Outcome: Sendable, Equatable {
        /// "scale", "hold", "trim", "cut", "not enough data" or "n/a".
        public var verdict: String
        public var reason: String
    }

    /// Days of data whose pace says when a thin sample will be enough.
    public static let paceDays = 14
    /// The day an install cohort must reach before its curve can be projected.
    public static let projectionDay = 7

    public static func decide(_ input: Inputs, rule: Rule) -> Outcome {
        let scope = input.isTotal ? "paid networks only (organic and invited installs left out): " : ""
        guard let cpi = input.cpi else {
            if input.isTotal { return Outcome(verdict: "n/a", reason: "no paid installs: nothing bought") }
            return Outcome(verdict: "n/a", reason: input.spend > 0
                ? "spend but no paid installs: check the attribution"
                : "no spend: organic or viral traffic, nothing to buy or cut")
        }
        if input.installs < rule.minInstalls || input.payers < rule.minPayers {
            return Outcome(verdict: "not enough data", reason: scope + thinSample(input, rule: rule))
        }
        guard let ltv = input.ltv else {
            var reason = scope + "no LTV_D180 yet: not enough mature cohort days to project it"
            if let first = input.firstDay, let last = input.lastDay {
                let ready = max(first + projectionDay + 1, last + 1)
                reason += "; the projection needs cohorts past D\(projectionDay), expected from \(date(ready))"
            }
            return Outcome(verdict: "not enough data", reason: reason + "; keep spend as it is until then")
        }
        let low = input.ltvLow ?? ltv, high = input.ltvHigh ?? ltv
        let ratio = ltv / cpi, lowRatio = low / cpi, highRatio = high / cpi
        var average = scope + "LTV_D180 \(input.ltvProjected ? "projected" : "observed") \(money(ltv))"
        if input.ltvProjected { average += " (interval \(money(low))-\(money(high)))" }
        average += " is \(times(ratio)) CPI \(money(cpi))"
        let scales = ratio >= rule.scaleRatio && lowRatio >= 1
        if ratio < rule.cutRatio && highRatio < 1 {
            var reason = average + "; under \(plain(rule.cutRatio))x and even the high end does not pay back"
            if let curve = input.curve {
                reason += "; marginal CPI \(money(curve.marginalCPI)) at \(money(curve.currentSpend)) a day"
            }
            return Outcome(verdict: "cut", reason: reason + ": stop buying it or renegotiate the price")
        }
        guard let curve = input.curve else {
            let why = input.noCurveReason.map { " (\($0))" } ?? ""
            if scales {
                return Outcome(verdict: "scale", reason: average + "; at least \(plain(rule.scaleRatio))x and even the "
                    + "low end pays back, but no response curve\(why) says how far: raise spend by at most "
                    + "\(percent(step)) a step and look again")
            }
            return Outcome(verdict: "hold", reason: average + "; " + holdWhy(ratio: ratio, lowRatio: lowRatio, rule: rule)
                + ": keep spend as it is and watch the next cohorts")
        }
        let marginalReturn = ltv / curve.marginalCPI
        let marginal = "marginal CPI \(money(curve.marginalCPI)) at \(money(curve.currentSpend)) a day is "
            + "\(times(marginalReturn)) return on the next dollar"
        if marginalReturn < 1 - marginalBand {
            let target: String
            if let headroom = curve.headroomSpend, headroom < curve.currentSpend {
                target = "lower spend from \(money(curve.currentSpend)) to about \(money(headroom)) a day, where the "
                    + "marginal CPI meets the LTV"
            } else {
                target = "lower spend by \(percent(step)) a step (to \(money(curve.currentSpend * (1 - step))) a day) and look again"
            }
            return Outcome(verdict: "trim", reason: average + "; " + marginal + ": the last installs cost more than they earn; "
                + target)
        }
        if scales && marginalReturn >= 1 + marginalBand {
            let target: String
            if let headroom = curve.headroomSpend, headroom > curve.currentSpend {
                target = "raise spend from \(money(curve.currentSpend)) to about \(money(headroom)) a day, where the "
                    + "marginal CPI meets the LTV"
            } else {
                target = "raise spend by at most \(percent(step)) a step (to \(money(curve.currentSpend * (1 + step))) a day) "
                    + "and look again: the curve is not known much past the largest day seen"
            }
            return Outcome(verdict: "scale", reason: average + "; " + marginal + "; " + target)
        }
        let why = marginalReturn < 1 + marginalBand
            ? "the next install earns about what it costs"
            : holdWhy(ratio: ratio, lowRatio: lowRatio, rule: rule)
        return Outcome(verdict: "hold", reason: average + "; " + marginal + "; " + why
            + ": keep \(money(curve.currentSpend)) a day and watch the next cohorts")
    }

    /// The paid networks' LTV_D180 for the row of all networks: each paid network's LTV (and
    /// interval ends) weighted by its paid installs, so it is set against the CPI of the same
    /// installs. Nil when no paid network has an LTV_D180.
    public static func paidTotal(_ networks: [Inputs]) -> (ltv: Double, low: Double, high: Double, projected: Bool)? {
        let paid = networks.filter { !$0.isTotal && $0.spend > 0 && $0.paidInstalls > 0 }
        let known = paid.filter { $0.ltv != nil }
        guard !known.isEmpty, known.count == paid.count else { return nil }
        let weight = Double(known.reduce(0) { $0 + $1.paidInstalls })
        func mean(_ value: (Inputs) -> Double) -> Double {
            known.reduce(0) { $0 + value($1) * Double($1.paidInstalls) } / weight
        }
        return (mean { $0.ltv! }, mean { $0.ltvLow ?? $0.ltv! }, mean { $0.ltvHigh ?? $0.ltv! },
                known.contains { $0.ltvProjected })
    }

    static func thinSample(_ input: Inputs, rule: Rule) -> String {
        var reason = "\(input.installs) installs and \(input.payers) payers: a verdict needs at least "
            + "\(rule.minInstalls) installs and \(rule.minPayers) payers ([verdict] min_installs, min_payers)"
        let missingInstalls = Double(max(rule.minInstalls - input.installs, 0))
        let missingPayers = Double(max(rule.minPayers - input.payers, 0))
        let installDays = missingInstalls == 0 ? 0 : input.installsPerDay > 0 ? missingInstalls / input.installsPerDay : .infinity
        let payerDays = missingPayers == 0 ? 0 : input.payersPerDay > 0 ? missingPayers / input.payersPerDay : .infinity
        let days = max(installDays, payerDays)
        if let last = input.lastDay, days.isFinite {
            reason += String(format: "; at the last %d days' pace (%.1f installs, %.1f payers a day) expected by ",
                             paceDays, input.installsPerDay, input.payersPerDay) + date(last + Int(days.rounded(.up)))
        } else {
            reason += "; no \(installDays.isFinite ? "payers" : "installs") in the last \(paceDays) days to say when"
        }
        return reason + "; keep spend as it is and look again then"
    }

    static func holdWhy(ratio: Double, lowRatio: Double, rule: Rule) -> String {
        if ratio >= rule.scaleRatio && lowRatio < 1 { return "strong but uncertain (the low end does not pay back)" }
        if ratio < rule.cutRatio { return "weak but uncertain (the high end pays back)" }
        return "between \(plain(rule.cutRatio))x and \(plain(rule.scaleRatio))x"
    }

    static func money(_ value: Double) -> String { String(format: "$%.2f", value) }
    static func times(_ value: Double) -> String { String(format: "%.2fx", value) }
    static func percent(_ value: Double) -> String { String(format: "%.0f%%", value * 100) }
    static func plain(_ value: Double) -> String {
        value == value.rounded() ? String(format: "%.0f", value) : String(format: "%g", (value * 100).rounded() / 100)
    }
    static func date(_ day: Int) -> String { CivilTime.dateString(days: day) }
}
