import Foundation
import FunnelCore
import Testing

@Suite("Spend response")
struct SpendResponseTests {
    /// 14 days, spend alternating 100 and 400, installs = 2 * sqrt(spend): 20 and 40.
    /// By hand: b = 0.5, a = 2; at spend 100 the average CPI is 100 / 20 = 5 and the marginal CPI
    /// 100^0.5 / (2 * 0.5) = 10; the marginal CPI reaches 20 at (2 * 0.5 * 20)^(1 / 0.5) = 400.
    @Test("an exact power law is recovered: exponent, marginal CPI and headroom by hand")
    func handComputedCurve() throws {
        let days = (0..<14).map { day in
            let spend = day % 2 == 0 ? 100.0 : 400.0
            return SpendDay(day: day, weekday: day % 7, spend: spend, installs: 2 * sqrt(spend))
        }
        let fit = try #require(SpendResponse.fit(days).curve)
        #expect(abs(fit.b - 0.5) < 1e-9)
        #expect(abs(fit.a - 2) < 1e-9)
        #expect(fit.standardError < 1e-6)
        #expect(abs(fit.marginalCPI(spend: 100) - 10) < 1e-9)
        #expect(abs(fit.expectedCPI(spend: 100) - 5) < 1e-9)
        #expect(abs(try #require(fit.spend(whereMarginalCPIReaches: 20)) - 400) < 1e-6)
        #expect(fit.points == 14)
    }

    /// Weekends buy 20% fewer installs at the same spend: the weekend effect is ln 0.8 against the
    /// weekdays, and a is the average weekday's: 2 * 0.8^(2/7).
    @Test("weekday effects are separated from the exponent")
    func weekdayEffects() throws {
        let days = (0..<28).map { day in
            let spend = [100.0, 250, 400, 160][day % 4]
            let weekend = day % 7 >= 5 ? 0.8 : 1
            return SpendDay(day: day, weekday: day % 7, spend: spend, installs: 2 * sqrt(spend) * weekend)
        }
        let fit = try #require(SpendResponse.fit(days).curve)
        #expect(abs(fit.b - 0.5) < 1e-9)
        #expect(abs(fit.weekdayEffects[5] - fit.weekdayEffects[0] - log(0.8)) < 1e-9)
        #expect(abs(fit.a - 2 * pow(0.8, 2.0 / 7)) < 1e-9)
    }

    @Test("too few days or too little spend variation: no curve")
    func notEnoughHistory() {
        let short = (0..<13).map { SpendDay(day: $0, weekday: $0 % 7, spend: $0 % 2 == 0 ? 100 : 400, installs: 30) }
        guard case .notEnoughHistory(let reason) = SpendResponse.fit(short) else {
            Issue.record("13 days gave a curve")
            return
        }
        #expect(reason.contains("13 days"))
        let flat = (0..<30).map { SpendDay(day: $0, weekday: $0 % 7, spend: 100 + Double($0 % 3), installs: 30 + Double($0 % 5)) }
        guard case .notEnoughHistory(let flatReason) = SpendResponse.fit(flat) else {
            Issue.record("constant spend gave a curve")
            return
        }
        #expect(flatReason.contains("hardly varies"))
        // Zero-spend and zero-install days are not usable: 20 days of which 8 have no spend.
        let gappy = (0..<20).map { SpendDay(day: $0, weekday: $0 % 7, spend: $0 < 8 ? 0 : Double(100 + 50 * ($0 % 3)), installs: 25) }
        #expect(SpendResponse.fit(gappy).curve == nil)
    }

    /// 30 days of spend 100 and installs cycling 49, 50, 51 (CPI about 2); day 15 buys 20
    /// installs (CPI 5). By hand: its neighbours' median log CPI is ln 2 (the middle two of the 28
    /// are both 50-install days), so the expected CPI is 2 and the excess cost 100 - 20 * 2 = 60;
    /// the other days are within 2% of the median, under the 1.3x floor.
    @Test("the outlier rule flags the one inflated day with its excess cost, by hand")
    func handComputedOutlier() throws {
        let days = (0..<30).map { day in
            SpendDay(day: day, weekday: day % 7, spend: 100, installs: day == 15 ? 20 : [49.0, 50, 51][day % 3])
        }
        let found = SpendResponse.inflatedDays(days, curve: nil)
        #expect(found.map(\.day.day) == [15])
        let day = try #require(found.first)
        #expect(abs(day.expectedCPI - 2) < 1e-9)
        #expect(abs(day.excessCost - 60) < 1e-6)
    }

    /// 120 days of budgets swinging +-50%, installs = 3 * spend^0.6 with 8% noise, weekends 15%
    /// dearer, and three days at 2.5x the CPI: the exponent within 0.05 (inside its interval) and
    /// exactly the three days flagged.
    @Test("planted curve and inflated days are recovered from noisy history")
    func plantedRecovery() throws {
        var random = SplitMix64(seed: 35)
        let planted: Set<Int> = [20, 61, 99]
        let days = (0..<120).map { day -> SpendDay in
            let spend = 500 * (1 + 0.5 * sin(Double(day) * 2 * .pi / 11))
            var installs = 3 * pow(spend, 0.6) * exp(0.08 * random.normal())
            if day % 7 >= 5 { installs /= 1.15 }
            if planted.contains(day) { installs /= 2.5 }
            return SpendDay(day: day, weekday: day % 7, spend: spend, installs: installs.rounded())
        }
        let analysis = SpendResponse.analyse(days)
        let fit = try #require(analysis.outcome.curve)
        #expect(abs(fit.b - 0.6) < 0.05)
        #expect(fit.low < 0.6 && 0.6 < fit.high)
        #expect(Set(analysis.inflated.map(\.day.day)) == planted)
        #expect(fit.marginalCPI(spend: 500) / fit.expectedCPI(spend: 500) > SpendResponse.saturationRatio)
    }
}
