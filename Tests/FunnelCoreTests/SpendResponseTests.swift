import Foundation
@testable import FunnelCore
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
        #expect(fit.form == .powerLaw)
    }

    /// 28 days, spend cycling 50, 100, 200, 400, 800 (weekday-balanced enough), installs =
    /// 100 * spend / (200 + spend) exactly. By hand: M = 100, K = 200; at spend 200 the marginal
    /// CPI is (200 + 200)^2 / (100 * 200) = 8 and the average CPI (200 + 200) / 100 = 4; the
    /// marginal CPI reaches 12.5 at sqrt(100 * 200 * 12.5) - 200 = 300. The power law cannot bend
    /// like that, so the saturating form wins by AIC.
    @Test("an exact saturating curve is recovered and chosen: capacity, half-saturation spend, marginal CPI and headroom by hand")
    func handComputedSaturating() throws {
        let days = (0..<28).map { day in
            let spend = [50.0, 100, 200, 400, 800][day % 5]
            return SpendDay(day: day, weekday: day % 7, spend: spend, installs: 100 * spend / (200 + spend))
        }
        let fit = try #require(SpendResponse.fit(days).curve)
        let curve = try #require(fit.saturating)
        #expect(fit.form == .saturating)
        #expect(abs(curve.capacity - 100) < 1e-4)
        #expect(abs(curve.halfSaturationSpend - 200) < 1e-3)
        #expect(curve.aic < fit.aicPowerLaw - SpendResponse.formAICMargin)
        #expect(abs(fit.marginalCPI(spend: 200) - 8) < 1e-4)
        #expect(abs(fit.expectedCPI(spend: 200) - 4) < 1e-5)
        #expect(abs(try #require(fit.spend(whereMarginalCPIReaches: 12.5)) - 300) < 1e-3)
        #expect(abs(fit.spend(forInstalls: 50) - 200) < 1e-3)
        #expect(fit.spend(forInstalls: 100).isInfinite)
        // Below the first install's cost (K / M = 2) there is no headroom.
        #expect(fit.spend(whereMarginalCPIReaches: 1.5) == nil)
    }

    /// Ten seeds each of 90 noisy days (8% log noise, budgets swinging +-60%, weekends 15% dearer):
    /// a planted power law (b = 0.6) is fitted as a power law and a planted saturating curve (M =
    /// 300, K = 400 at spends 150-1,050) as saturating, in at least 9 of the 10; on the saturating
    /// ones M and K within 25% and the headroom at a CPI of 10 within 15% of the planted
    /// sqrt(300 * 400 * 10) - 400 = 695.4.
    @Test("the right form is chosen on planted data, and the saturating curve's headroom recovered")
    func plantedFormChoice() throws {
        var powerRight = 0, saturatingRight = 0
        var headroomErrors: [Double] = []
        for seed in 0..<10 {
            var random = SplitMix64(seed: 3500 + UInt64(seed))
            func history(_ curve: (Double) -> Double) -> [SpendDay] {
                (0..<90).map { day in
                    let spend = 600 * (1 + 0.75 * sin(Double(day) * 2 * .pi / 13)) * exp(0.1 * random.normal())
                    var installs = curve(spend) * exp(0.08 * random.normal())
                    if day % 7 >= 5 { installs /= 1.15 }
                    return SpendDay(day: day, weekday: day % 7, spend: spend, installs: installs.rounded())
                }
            }
            let power = try #require(SpendResponse.analyse(history { 3 * pow($0, 0.6) }).outcome.curve)
            if power.form == .powerLaw { powerRight += 1 }
            let saturating = try #require(SpendResponse.analyse(history { 300 * $0 / (400 + $0) }).outcome.curve)
            if saturating.form == .saturating, let curve = saturating.saturating {
                saturatingRight += 1
                // The weekend effect lowers the average weekday's capacity by 1.15^(-2/7).
                let capacity = 300 * pow(1.15, -2.0 / 7)
                #expect(abs(curve.capacity / capacity - 1) < 0.25, "seed \(seed): M \(curve.capacity)")
                #expect(abs(curve.halfSaturationSpend / 400 - 1) < 0.25, "seed \(seed): K \(curve.halfSaturationSpend)")
                let headroom = try #require(saturating.spend(whereMarginalCPIReaches: 10))
                let planted = sqrt(capacity * 400 * 10) - 400
                headroomErrors.append(abs(headroom / planted - 1))
            }
        }
        print("planted form choice: power law \(powerRight)/10, saturating \(saturatingRight)/10; "
            + "headroom errors \(headroomErrors.map { String(format: "%.3f", $0) })")
        #expect(powerRight >= 9)
        #expect(saturatingRight >= 9)
        #expect(headroomErrors.allSatisfy { $0 < 0.15 })
    }

    /// The interval of b on days whose noise is autocorrelated (AR(1), rho 0.7) and larger on
    /// small days (log sd 0.06 at the top spend, 0.18 at the bottom): over 80 planted histories of 70
    /// days with b = 0.6, the honest 90% interval covers the planted b at least 80% of the time; the
    /// ordinary one, which assumes independent equal-variance days, covers less, and is never wider.
    @Test("the interval of b keeps its coverage when days are noisy and dependent")
    func intervalCoverage() throws {
        var random = SplitMix64(seed: 3535)
        var honest = 0, ordinary = 0
        var estimates: [Double] = [], errors: [Double] = [], widths: [Double] = []
        let histories = 80
        for _ in 0..<histories {
            var noise = 0.0
            let days = (0..<70).map { day -> SpendDay in
                let spend = 500 * (1 + 0.6 * sin(Double(day) * 2 * .pi / 17)) * exp(0.15 * random.normal())
                let sd = 0.06 + 0.12 * max(0, 1 - spend / 800)
                noise = 0.7 * noise + sqrt(1 - 0.49) * random.normal()
                return SpendDay(day: day, weekday: day % 7, spend: spend, installs: 3 * pow(spend, 0.6) * exp(sd * noise))
            }
            let fit = try #require(SpendResponse.fit(days).curve)
            estimates.append(fit.estimatedB); errors.append(fit.standardError); widths.append(fit.high - fit.low)
            if fit.low <= 0.6 && 0.6 <= fit.high { honest += 1 }
            let half = SpendResponse.studentT95(degrees: fit.points - 8) * fit.ordinaryStandardError
            if fit.estimatedB - half <= 0.6 && 0.6 <= fit.estimatedB + half { ordinary += 1 }
            #expect(fit.standardError >= fit.ordinaryStandardError)
            #expect(fit.low <= fit.estimatedB - half + 1e-12 && fit.high >= fit.estimatedB + half - 1e-12)
        }
        let mean = estimates.reduce(0, +) / Double(histories)
        let sd = sqrt(estimates.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(histories - 1))
        print("coverage of b's nominal 90% interval over \(histories) planted histories: honest \(honest), ordinary \(ordinary); "
            + "mean b \(mean), sd \(sd), mean se \(errors.reduce(0, +) / Double(histories)), mean width \(widths.reduce(0, +) / Double(histories))")
        #expect(Double(honest) >= 0.8 * Double(histories))
        #expect(ordinary < honest)
    }

    /// Also the median `funnel bench ingest --history-runs` prints of its runs' ratios.
    @Test("the median: the middle value of an odd count, the mean of the two middle values of an even count, whatever the order")
    func median() {
        #expect(SpendResponse.median([0.48]) == 0.48)
        #expect(SpendResponse.median([0.54, 0.43, 0.48]) == 0.48)
        #expect(SpendResponse.median([0.50, 0.40, 0.60, 0.30]) == 0.45)
        #expect(SpendResponse.median([]) == 0)
    }
}
