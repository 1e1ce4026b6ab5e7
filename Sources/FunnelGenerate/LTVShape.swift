import Foundation

/// The shape of the planted LTV curve: when a payer's purchases fall after the install.
///
/// Each shape keeps the sources' payer rates, purchase counts (1 + Poisson(extra)) and amounts;
/// only the timing differs, so the curves differ in shape and not in scale. `H` is
/// `PlantedModel.purchaseHorizonDays`.
public enum LTVShape: String, Sendable, CaseIterable, Codable {
    /// The first purchase Exp(1 d) after the install, later ones a further Exp(45 d): most of the
    /// value in the first months, then nearly flat. The default, and the only shape before shapes
    /// could be chosen: the same seed writes the same bytes as it always did.
    case saturating
    /// Every purchase at H * U^(1/beta) days (U uniform, beta = `PlantedModel.powerLawExponent`):
    /// cumulative revenue grows as (day + 1)^beta up to H.
    case powerLaw = "power-law"
    /// The first purchase Exp(1 d) after the install, later ones a further H * U days: a large
    /// share of the year's value on day 0, then linear growth, as real purchase histories often show.
    case frontLoadedLinear = "front-loaded-linear"

    /// The days after the install of a payer's purchase number `index`, the first purchase falling
    /// `first` days after it. Draws from `random` only for later purchases (and for every
    /// purchase of the power law), so the saturating shape draws exactly what it always drew.
    func purchaseOffsetDays(index: Int, first: Double, random: inout SeededRandom) -> Double {
        switch self {
        case .saturating:
            return index == 0 ? first : first + random.exponential(mean: PlantedModel.laterPurchaseMeanDays)
        case .powerLaw:
            return PlantedModel.purchaseHorizonDays * pow(random.uniform(), 1 / PlantedModel.powerLawExponent)
        case .frontLoadedLinear:
            return index == 0 ? first : first + PlantedModel.purchaseHorizonDays * random.uniform()
        }
    }

    /// Expected purchases per payer made before `t` days after the install (on days 0..t-1).
    func expectedPurchases(before t: Double, extra: Double) -> Double {
        let h = PlantedModel.purchaseHorizonDays
        let firstMean = PlantedModel.firstPurchaseMeanDays
        let first = 1 - exp(-t / firstMean)
        switch self {
        case .saturating:
            return first + extra * PlantedExpectations.hypoexponentialCDF(t, firstMean, PlantedModel.laterPurchaseMeanDays)
        case .powerLaw:
            return (1 + extra) * pow(min(1, t / h), PlantedModel.powerLawExponent)
        case .frontLoadedLinear:
            // P(E + H U < t) with E ~ Exp(m), U ~ Uniform(0, 1).
            let later = t <= h
                ? (t - firstMean * (1 - exp(-t / firstMean))) / h
                : 1 - firstMean / h * (exp((h - t) / firstMean) - exp(-t / firstMean))
            return first + extra * later
        }
    }

    /// One line for truth.json's definitions.
    var definition: String {
        let h = Int(PlantedModel.purchaseHorizonDays)
        return switch self {
        case .saturating:
            "saturating: the first purchase Exp(\(PlantedModel.firstPurchaseMeanDays) d) after install, later ones a further Exp(\(PlantedModel.laterPurchaseMeanDays) d)"
        case .powerLaw:
            "power-law: every purchase at \(h) * U^(1/\(PlantedModel.powerLawExponent)) days after install (U uniform), so cumulative revenue grows as (day + 1)^\(PlantedModel.powerLawExponent) up to day \(h)"
        case .frontLoadedLinear:
            "front-loaded-linear: the first purchase Exp(\(PlantedModel.firstPurchaseMeanDays) d) after install, later ones a further \(h) * U days (U uniform): a large share on day 0, then linear"
        }
    }
}
