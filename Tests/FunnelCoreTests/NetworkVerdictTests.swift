import Foundation
import FunnelCalendar
@testable import FunnelCore
import Testing

@Suite("Network verdict")
struct NetworkVerdictTests {
    /// A hand-made case: the inputs, the verdict expected and words the reason must contain.
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var input: NetworkVerdict.Inputs
        var verdict: String
        var words: [String]
        var description: String { name }
    }

    static let last = CivilTime.days(year: 2026, month: 3, day: 1)

    /// 400 installs (40 payers) at CPI $2.00, LTV_D180 projected; today's spend $100 a day.
    static func network(ltv: Double?, low: Double? = nil, high: Double? = nil, marginal: Double? = nil,
                        headroom: Double? = nil, installs: Int = 400, payers: Int = 40, spend: Double = 800,
                        cpi: Double? = 2) -> NetworkVerdict.Inputs {
        NetworkVerdict.Inputs(
            network: "net", installs: installs, paidInstalls: installs, payers: payers, spend: spend, cpi: cpi,
            ltv: ltv, ltvLow: low ?? ltv, ltvHigh: high ?? ltv, ltvProjected: true,
            curve: marginal.map { NetworkVerdict.Curve(currentSpend: 100, marginalCPI: $0, headroomSpend: headroom) },
            noCurveReason: marginal == nil ? "not enough spend history: 9 days with spend and installs (needs 14)" : nil,
            installsPerDay: 5, payersPerDay: 0.5, lastDay: last, firstDay: last - 20)
    }

    /// Average return r = LTV / $2.00 against 1.5 and 0.7; marginal return m = LTV / marginal CPI
    /// against 1.1 and 0.9.
    static let cases: [Case] = [
        Case(name: "r 2.0, m 1.6: scale to the headroom",
             input: network(ltv: 4, low: 3, high: 5, marginal: 2.5, headroom: 180), verdict: "scale",
             words: ["is 2.00x CPI $2.00", "marginal CPI $2.50 at $100.00 a day is 1.60x", "raise spend from $100.00 to about $180.00 a day"]),
        Case(name: "r 2.0, m 0.8: trim (the old double down beside 'lower spend')",
             input: network(ltv: 4, low: 3, high: 5, marginal: 5, headroom: 80), verdict: "trim",
             words: ["is 2.00x", "is 0.80x return on the next dollar", "lower spend from $100.00 to about $80.00 a day"]),
        Case(name: "r 2.0, m 1.05 (near 1): hold",
             input: network(ltv: 4, low: 3, high: 5, marginal: 3.81, headroom: 104), verdict: "hold",
             words: ["1.05x return", "the next install earns about what it costs", "keep $100.00 a day"]),
        Case(name: "r exactly 1.5, low end 1.05, m 1.2: scale",
             input: network(ltv: 3, low: 2.1, high: 4, marginal: 2.5, headroom: 130), verdict: "scale",
             words: ["is 1.50x", "raise spend from $100.00 to about $130.00"]),
        Case(name: "r 1.49 (just under 1.5), m 1.19: hold between the thresholds",
             input: network(ltv: 2.98, low: 2.5, high: 3.5, marginal: 2.5, headroom: 120), verdict: "hold",
             words: ["is 1.49x", "between 0.7x and 1.5x", "keep $100.00 a day"]),
        Case(name: "r 2.0 but the low end 0.9x: hold, strong but uncertain",
             input: network(ltv: 4, low: 1.8, high: 6, marginal: 2.5, headroom: 160), verdict: "hold",
             words: ["strong but uncertain (the low end does not pay back)", "keep $100.00 a day"]),
        Case(name: "r 0.6, high end 0.9x: cut",
             input: network(ltv: 1.2, low: 0.9, high: 1.8, marginal: 4), verdict: "cut",
             words: ["is 0.60x", "under 0.7x and even the high end does not pay back", "marginal CPI $4.00", "stop buying"]),
        Case(name: "r 0.6, high end 1.2x, no curve: hold, weak but uncertain",
             input: network(ltv: 1.2, low: 0.9, high: 2.4), verdict: "hold",
             words: ["weak but uncertain (the high end pays back)", "keep spend as it is"]),
        Case(name: "r exactly 0.7, m 0.56: trim by a step (no headroom known)",
             input: network(ltv: 1.4, low: 1, high: 1.9, marginal: 2.5), verdict: "trim",
             words: ["is 0.70x", "0.56x return", "lower spend by 20% a step (to $80.00 a day)"]),
        Case(name: "r 2.5, no curve: scale by steps, saying why there is no curve",
             input: network(ltv: 5, low: 4, high: 6), verdict: "scale",
             words: ["no response curve (not enough spend history: 9 days", "raise spend by at most 20% a step"]),
        Case(name: "r 2.5, m 2.0, headroom past what the curve knows: scale by steps",
             input: network(ltv: 5, low: 4, high: 6, marginal: 2.5), verdict: "scale",
             words: ["raise spend by at most 20% a step (to $120.00 a day)"]),
        Case(name: "40 installs and 3 payers: not enough data, with the date",
             input: network(ltv: 4, marginal: 2.5, installs: 40, payers: 3), verdict: "not enough data",
             words: ["40 installs and 3 payers", "at least 100 installs and 10 payers",
                     "expected by \(CivilTime.dateString(days: last + 14))"]),
        Case(name: "enough installs, 9 payers (one short): not enough data",
             input: network(ltv: 4, marginal: 2.5, payers: 9), verdict: "not enough data",
             words: ["400 installs and 9 payers", "expected by \(CivilTime.dateString(days: last + 2))"]),
        Case(name: "no LTV_D180 yet: not enough data, from when",
             input: network(ltv: nil, marginal: 2.5), verdict: "not enough data",
             words: ["no LTV_D180 yet", "expected from \(CivilTime.dateString(days: last + 1))"]),
        Case(name: "no spend: n/a",
             input: network(ltv: 4, spend: 0, cpi: nil), verdict: "n/a",
             words: ["no spend: organic or viral traffic"]),
    ]

    @Test("hand-made cases: the verdict and its words", arguments: cases)
    func handMadeCase(_ example: Case) {
        let outcome = NetworkVerdict.decide(example.input, rule: NetworkVerdict.Rule())
        print("\(example.name): \(outcome.verdict): \(outcome.reason)")
        #expect(outcome.verdict == example.verdict, "\(example.name): \(outcome.reason)")
        for word in example.words {
            #expect(outcome.reason.contains(word), "\(example.name): \"\(word)\" missing from \"\(outcome.reason)\"")
        }
        // The words never advise the opposite of the verdict.
        let raises = outcome.reason.contains("raise spend"), lowers = outcome.reason.contains("lower spend")
            || outcome.reason.contains("stop buying")
        switch outcome.verdict {
        case "scale": #expect(raises && !lowers, "\(outcome.reason)")
        case "trim", "cut": #expect(lowers && !raises, "\(outcome.reason)")
        default: #expect(!raises && !lowers, "\(outcome.reason)")
        }
    }

    /// Two paid networks: 300 paid installs at LTV $3 ($2-$4) and 100 at $1 (observed): the paid
    /// LTV is (900 + 100) / 400 = $2.50, low (600 + 100) / 400 = $1.75, high (1200 + 100) / 400 = $3.25.
    /// An organic network (no spend) does not count. The row of all networks says "paid networks only".
    @Test("the row of all networks sets the paid networks' LTV against their CPI")
    func paidTotal() throws {
        var first = Self.network(ltv: 3, low: 2, high: 4)
        first.paidInstalls = 300
        var second = Self.network(ltv: 1)
        second.paidInstalls = 100
        second.ltvProjected = false
        var organic = Self.network(ltv: 9, spend: 0, cpi: nil)
        organic.paidInstalls = 0
        let total = try #require(NetworkVerdict.paidTotal([first, second, organic]))
        #expect(abs(total.ltv - 2.5) < 1e-12 && abs(total.low - 1.75) < 1e-12 && abs(total.high - 3.25) < 1e-12)
        var all = Self.network(ltv: total.ltv, low: total.low, high: total.high)
        all.isTotal = true
        all.cpi = 2
        let outcome = NetworkVerdict.decide(all, rule: NetworkVerdict.Rule())
        #expect(outcome.verdict == "hold")
        #expect(outcome.reason.hasPrefix("paid networks only (organic and invited installs left out): LTV_D180 projected $2.50"))
        second.ltv = nil
        #expect(NetworkVerdict.paidTotal([first, second]) == nil)
    }
}
