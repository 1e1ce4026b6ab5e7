import Foundation
import FunnelCalendar

/// The response curve planted for a paid network: installs = scale_a * spend^exponent_b on the
/// average weekday (weekends cost `weekend_multiplier` more per install, a weekday effect of
/// -b * ln(weekend_multiplier) on installs). Headroom is the daily spend at which the curve's
/// marginal CPI, spend^(1-b) / (a b), reaches the expected LTV_D180: (a b LTV)^(1 / (1 - b));
/// none when b = 1 (the marginal CPI is the same at every spend).
///
/// A network planted with a saturating curve (`curve_form` "saturating") buys installs =
/// capacity_installs * spend / (half_saturation_spend_usd + spend) on the average weekday;
/// exponent_b is then its elasticity at the planned daily spend, 1 - planned installs / capacity,
/// scale_a the power law through the planned day with that exponent, and the headroom
/// sqrt(capacity * K * LTV) - K, where the marginal CPI (K + spend)^2 / (capacity K) meets the LTV.
public struct SpendResponseTruth: Codable, Sendable, Equatable {
    public var network: String
    public var curveForm: String
    public var exponentB: Double
    public var scaleA: Double
    public var capacityInstalls: Double?
    public var halfSaturationSpendUsd: Double?
    public var saturating: Bool
    /// The mean daily paid installs the budgets plan, and what a day of them costs on the curve.
    public var plannedDailyInstalls: Double
    public var plannedDailySpendUsd: Double
    public var expectedLtvD180: Double
    public var headroomSpendUsd: Double?

    /// The planted curve's marginal CPI at a daily spend (average weekday).
    public func marginalCPI(spend: Double) -> Double {
        if let capacity = capacityInstalls, let half = halfSaturationSpendUsd {
            return (half + spend) * (half + spend) / (capacity * half)
        }
        return pow(spend, 1 - exponentB) / (scaleA * exponentB)
    }
}

/// A planted peak hour (`funnel generate --hourly-spend`): in that hour of the day (UTC) the
/// network's installs cost cpi_multiplier times its other hours'. cpi_index is the peak hour's
/// CPI over the network's CPI across all hours, as written (spend and paid installs of the hour
/// rows as finally stated).
public struct PeakHourTruth: Codable, Sendable, Equatable {
    public var network: String
    public var hour: Int
    public var cpiMultiplier: Double
    public var cpiIndex: Double
}

/// A planted peak day: the network paid `cpi_multiplier` times the curve's CPI for its installs;
/// the excess cost is spend - spend / cpi_multiplier.
public struct InflatedDayTruth: Codable, Sendable, Equatable {
    public var network: String
    public var date: String
    public var cpiMultiplier: Double
    public var spendUsd: Double
    public var excessCostUsd: Double
}

extension DataGenerator {
    func spendResponseTruth() -> [SpendResponseTruth] {
        PlantedModel.paidIndices.map { index in
            let profile = PlantedModel.sources[index]
            let b = profile.responseExponent
            let reference = plannedDailyPaid[index]
            let cpiAtReference = profile.cpiBase * (1 + profile.cpiSaturation)
            // spend = w * c * ref^(1 - 1/b) * V^(1/b)  =>  V = ref^(1-b) * (c w)^-b * spend^b; the
            // average weekday carries 2/7 of the weekend's -b ln w.
            let scale = pow(reference, 1 - b) * pow(cpiAtReference, -b) * exp(-b * 2 / 7 * log(profile.weekendMultiplier))
            let ltv = PlantedExpectations.ltv(profile, day: 180, shape: options.ltvShape)
            if let curve = saturatingCurve(source: index) {
                // Weekends have capacity M / w: the average weekday's capacity is M w^(-2/7).
                let capacity = curve.capacity * exp(-2 / 7 * log(profile.weekendMultiplier))
                let half = curve.halfSpend
                let elasticity = 1 - reference / capacity
                let headroom = sqrt(capacity * half * ltv) - half
                let spendAtReference = half * reference / (capacity - reference)
                return SpendResponseTruth(
                    network: profile.name, curveForm: "saturating", exponentB: elasticity,
                    scaleA: reference / pow(spendAtReference, elasticity), capacityInstalls: capacity,
                    halfSaturationSpendUsd: half, saturating: true, plannedDailyInstalls: reference,
                    plannedDailySpendUsd: reference * cpiAtReference, expectedLtvD180: ltv,
                    headroomSpendUsd: headroom > 0 ? headroom : nil)
            }
            return SpendResponseTruth(
                network: profile.name, curveForm: "power law", exponentB: b, scaleA: scale, capacityInstalls: nil,
                halfSaturationSpendUsd: nil, saturating: b < 1,
                plannedDailyInstalls: reference, plannedDailySpendUsd: reference * cpiAtReference, expectedLtvD180: ltv,
                headroomSpendUsd: b < 1 ? pow(scale * b * ltv, 1 / (1 - b)) : nil)
        }
    }

    func inflatedDayTruth() -> [InflatedDayTruth] {
        PlantedModel.inflatedDays.compactMap { planted in
            guard let cents = inflatedSpendCents[planted.source] else { return nil }
            let spend = Double(cents) / 100
            return InflatedDayTruth(
                network: PlantedModel.sources[planted.source].name,
                date: CivilTime.dateString(days: startDay + inflatedDay(planted.dayShare)),
                cpiMultiplier: planted.multiplier, spendUsd: spend, excessCostUsd: spend - spend / planted.multiplier)
        }
    }

    func peakHourTruth() -> [PeakHourTruth] {
        guard options.hourlySpend else { return [] }
        return PlantedModel.peakHours.compactMap { planted in
            guard let tally = peakHourTallies[planted.source], tally.peakInstalls > 0, tally.installs > 0,
                  tally.cents > 0 else { return nil }
            let index = (Double(tally.peakCents) / Double(tally.peakInstalls)) / (Double(tally.cents) / Double(tally.installs))
            return PeakHourTruth(network: PlantedModel.sources[planted.source].name, hour: planted.hour,
                                 cpiMultiplier: planted.multiplier, cpiIndex: index)
        }
    }
}

/// The planted optimum of the generator's own daily budget (the sum of the paid networks'
/// planned daily spend): the split that maximises projected D180 revenue, each network's
/// expected LTV_D180 times the installs its planted curve buys on the average weekday, with
/// each network's spend at most `max_spend_multiple` times its planned daily spend (a straight
/// line, b = 1, would otherwise take everything). Found by bisection on the common marginal
/// return (value over marginal CPI), from the curves' closed forms; `funnel plan` is checked
/// against it with the same maximums.
public struct PlannedOptimumTruth: Codable, Sendable, Equatable {
    public struct Line: Codable, Sendable, Equatable {
        public var network: String
        public var spendUsd: Double
        public var maxSpendUsd: Double
        public var installs: Double
        public var revenueUsd: Double
    }

    public var budgetUsd: Double
    public var horizonDay: Int
    public var maxSpendMultiple: Double
    public var marginalReturn: Double
    public var revenueUsd: Double
    public var networks: [Line]

    /// Each network's maximum spend is this many times its planned daily spend.
    public static let maxSpendMultiple = 3.0
}

extension SpendResponseTruth {
    /// Installs a day at a spend on the planted curve (average weekday).
    public func installs(spend: Double) -> Double {
        guard spend > 0 else { return 0 }
        if let capacity = capacityInstalls, let half = halfSaturationSpendUsd { return capacity * spend / (half + spend) }
        return scaleA * pow(spend, exponentB)
    }

    /// The spend where the marginal return (LTV / marginal CPI) falls to `level`, within 0...cap.
    func spend(atReturn level: Double, cap: Double) -> Double {
        let cpi = expectedLtvD180 / level
        if let capacity = capacityInstalls, let half = halfSaturationSpendUsd {
            return min(max(sqrt(capacity * half * cpi) - half, 0), cap)
        }
        if exponentB >= 1 { return marginalCPI(spend: 1) < cpi ? cap : 0 }
        return min(pow(scaleA * exponentB * cpi, 1 / (1 - exponentB)), cap)
    }

    /// The planted optimum of the planned budget over these curves.
    static func plannedOptimum(_ curves: [SpendResponseTruth]) -> PlannedOptimumTruth {
        let budget = curves.reduce(0) { $0 + $1.plannedDailySpendUsd }
        let caps = curves.map { $0.plannedDailySpendUsd * PlannedOptimumTruth.maxSpendMultiple }
        func spends(_ level: Double) -> [Double] { zip(curves, caps).map { $0.0.spend(atReturn: level, cap: $0.1) } }
        var low = 1e-6, high = 1e6
        for _ in 0..<300 {
            let middle = sqrt(low * high)
            if spends(middle).reduce(0, +) > budget { low = middle } else { high = middle }
        }
        // Between the two levels only a straight line can jump; it takes what is left.
        var spent = spends(high)
        let left = budget - spent.reduce(0, +)
        let jumps = zip(spends(low), spent).map { $0.0 - $0.1 }
        let jumped = jumps.reduce(0, +)
        if jumped > 0 { spent = zip(spent, jumps).map { $0.0 + left * $0.1 / jumped } }
        let lines = zip(zip(curves, caps), spent).map { pair, spend in
            PlannedOptimumTruth.Line(network: pair.0.network, spendUsd: spend, maxSpendUsd: pair.1,
                                     installs: pair.0.installs(spend: spend),
                                     revenueUsd: pair.0.installs(spend: spend) * pair.0.expectedLtvD180)
        }
        return PlannedOptimumTruth(budgetUsd: budget, horizonDay: 180, maxSpendMultiple: PlannedOptimumTruth.maxSpendMultiple,
                                   marginalReturn: sqrt(low * high), revenueUsd: lines.reduce(0) { $0 + $1.revenueUsd },
                                   networks: lines)
    }
}
