import Foundation
import FunnelCore
import Testing

@Suite("LTV projection")
struct PowerLawFitTests {
    @Test("a known power-law curve fitted on days <= 30 is recovered at day 60 and 90")
    func recoversKnownCurve() throws {
        // LTV(d) = 0.8 * d^0.35 with +-2% deterministic wiggle.
        let days = Array(0...30)
        let values = days.map { 0.8 * pow(Double(max($0, 1)), 0.35) * (1 + 0.02 * sin(Double($0))) }
        let fit = try #require(PowerLawFit.fit(days: days, values: values))
        #expect(abs(fit.b - 0.35) < 0.02)
        for horizon in [60, 90] {
            let truth = 0.8 * pow(Double(horizon), 0.35)
            #expect(abs(fit.predict(day: horizon) / truth - 1) < 0.03)
            let interval = fit.interval(day: horizon)
            #expect(interval.low < truth && truth < interval.high)
        }
    }

    /// Back-test on generated-like cohorts: payers buy first after Exp(1 day), then again every
    /// Exp(45 days) (the generator's purchase model); fit the cohort LTV on days <= 30 and compare
    /// with the observed day 60 and 90. The power law is within 25% and its interval covers.
    @Test("back-test on a generated-like cohort: projection from days <= 30 is close to observed day 60/90")
    func backTest() throws {
        var random = SplitMix(seed: 42)
        let users = 20_000
        var daily = [Double](repeating: 0, count: 91)
        for _ in 0..<users where random.unit() < 0.05 {
            var t = -log(1 - random.unit()) * 1.0
            let purchases = 1 + random.poisson(mean: 1.5)
            for index in 0..<purchases {
                if index > 0 { t += -log(1 - random.unit()) * 45 }
                let day = Int(t)
                if day <= 90 { daily[day] += 20 }
            }
        }
        var cumulative: [Double] = []
        var running = 0.0
        for value in daily {
            running += value
            cumulative.append(running / Double(users))
        }
        let fit = try #require(PowerLawFit.fit(days: Array(0...30), values: Array(cumulative[0...30])))
        for horizon in [60, 90] {
            let observed = cumulative[horizon]
            let projected = fit.predict(day: horizon)
            #expect(abs(projected / observed - 1) < 0.25, "day \(horizon): projected \(projected), observed \(observed)")
            let interval = fit.interval(day: horizon)
            #expect(interval.low <= observed && observed <= interval.high)
        }
    }

    @Test("too few points give no fit")
    func tooFewPoints() {
        #expect(PowerLawFit.fit(days: [0, 1, 2], values: [1, 2, 3]) == nil)
    }
}

/// A small deterministic random source for the back-test.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    mutating func poisson(mean: Double) -> Int {
        let limit = exp(-mean)
        var product = unit()
        var count = 0
        while product > limit {
            product *= unit()
            count += 1
        }
        return count
    }
}
