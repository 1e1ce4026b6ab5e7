import Foundation
import FunnelCalendar

/// The response curve planted for a paid network: installs = scale_a * spend^exponent_b on the
/// average weekday (weekends cost `weekend_multiplier` more per install, a weekday effect of
/// -b * ln(weekend_multiplier) on installs). Headroom is the daily spend at which the curve's
/// marginal CPI, spend^(1-b) / (a b), reaches the expected LTV_D180: (a b LTV)^(1 / (1 - b));
/// none when b = 1 (the marginal CPI is the same at every spend).
public struct SpendResponseTruth: Codable, Sendable, Equatable {
    public var network: String
    public var exponentB: Double
    public var scaleA: Double
    public var saturating: Bool
    /// The mean daily paid installs the budgets plan, and what a day of them costs on the curve.
    public var plannedDailyInstalls: Double
    public var plannedDailySpendUsd: Double
    public var expectedLtvD180: Double
    public var headroomSpendUsd: Double?
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
            return SpendResponseTruth(
                network: profile.name, exponentB: b, scaleA: scale, saturating: b < 1,
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
}
