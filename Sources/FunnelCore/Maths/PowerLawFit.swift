import Foundation

/// One of the LTV projection methods (`LTVMethod.powerLaw`): LTV(d) = a * d^b, fitted by weighted least squares on
/// (ln d, ln LTV(d)) over the observed days `fromDay...toDay`.
///
/// Day N of an observed LTV curve pools only the cohorts already mature for N, so its late days
/// rest on few installs and are noisy. Each point is weighted by the installs behind it, and
/// points backed by less than `minimumWeightShare` of the best-supported day are left out.
/// LTV is cumulative revenue, so it cannot fall: the exponent is constrained to b >= 0 (a flat
/// curve when the data say otherwise), and projections and their lower bound never go below the
/// highest observed LTV among the days a good share of the installs are mature for.
///
/// Uncertainty: the usual prediction interval of the log-log regression,
/// `ln a + b ln h ± z * s * sqrt(1 + 1/n + (ln h - mean ln d)^2 / Sxx)`, widened by a model-risk
/// term `extrapolationRisk * ln(h / toDay)` because consecutive days of a cumulative curve are not
/// independent (the plain regression interval is far too narrow) and the curve's shape can bend
/// after the fitted range. z = 1.645 (a nominal 90% interval); `extrapolationRisk` is 0.35,
/// chosen from back-tests on generated cohorts (fit on days <= 30, compare with day 60/90).
public struct PowerLawFit: Sendable, Equatable {
    public let a: Double
    public let b: Double
    /// Points fitted.
    public let points: Int
    public let fromDay: Int
    public let toDay: Int
    /// Standard deviation of the residuals in log space.
    public let residualSD: Double
    public let rSquared: Double
    /// The highest observed LTV among the days backed by at least `floorWeightShare` of the
    /// installs: the floor of every projection past the fitted range.
    public let lastObserved: Double
    let meanLogDay: Double
    let sxx: Double

    /// z of the stated interval (nominal 90%).
    public static let z = 1.645
    /// Widening of the log-space half-width per unit of ln(horizon / last fitted day).
    public static let extrapolationRisk = 0.35
    /// Fewest points a fit needs.
    public static let minimumPoints = 5
    /// Points whose weight is below this share of the largest weight are not fitted.
    public static let minimumWeightShare = 0.1
    /// The floor of projections is the highest observed LTV among the days backed by at least
    /// this share of the largest weight.
    public static let floorWeightShare = 0.3

    /// Fits LTV(d) = a * d^b to the points with day >= 1 and ltv > 0, each weighted by `weights`
    /// (the installs behind the point; all 1 when nil). When the curve reaches at least day 21,
    /// the first week (dominated by first purchases) is left out and the fit starts at day 7.
    /// Returns nil with fewer than `minimumPoints` usable points.
    public static func fit(days: [Int], values: [Double], weights: [Double]? = nil) -> PowerLawFit? {
        let pointWeights = weights ?? Array(repeating: 1, count: days.count)
        let all = zip(zip(days, values), pointWeights).map { (day: $0.0.0, value: $0.0.1, weight: $0.1) }
        let usable = all.filter { $0.day >= 1 && $0.value > 0 && $0.value.isFinite && $0.weight > 0 }
        guard let heaviest = usable.map(\.weight).max() else { return nil }
        let supported = usable.filter { $0.weight >= minimumWeightShare * heaviest }
        // The floor comes from the days a good share of installs are mature for: later days pool
        // fewer (and different) cohorts, so their level is no bound on the whole cohort's LTV.
        guard let lastDay = supported.map(\.day).max(),
              let lastObserved = supported.filter({ $0.weight >= floorWeightShare * heaviest }).map(\.value).max()
        else { return nil }
        let firstDay = lastDay >= 21 ? 7 : 1
        let chosen = supported.filter { $0.day >= firstDay }
        guard chosen.count >= minimumPoints else { return nil }
        let n = Double(chosen.count)
        let totalWeight = chosen.reduce(0) { $0 + $1.weight }
        // Weights scaled to mean 1, so sums keep the units of the unweighted formulas.
        let ws = chosen.map { $0.weight * n / totalWeight }
        let xs = chosen.map { log(Double($0.day)) }
        let ys = chosen.map { log($0.value) }
        let meanX = zip(ws, xs).reduce(0) { $0 + $1.0 * $1.1 } / n
        let meanY = zip(ws, ys).reduce(0) { $0 + $1.0 * $1.1 } / n
        var sxx = 0.0
        var sxy = 0.0
        var syy = 0.0
        for ((w, x), y) in zip(zip(ws, xs), ys) {
            sxx += w * (x - meanX) * (x - meanX)
            sxy += w * (x - meanX) * (y - meanY)
            syy += w * (y - meanY) * (y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = max(0, sxy / sxx)
        let intercept = meanY - slope * meanX
        var sse = 0.0
        for ((w, x), y) in zip(zip(ws, xs), ys) {
            let residual = y - (intercept + slope * x)
            sse += w * residual * residual
        }
        let sd = chosen.count > 2 ? (sse / (n - 2)).squareRoot() : 0
        let r2 = syy > 0 ? max(0, 1 - sse / syy) : 1
        return PowerLawFit(a: exp(intercept), b: slope, points: chosen.count, fromDay: chosen.map(\.day).min()!,
                           toDay: lastDay, residualSD: sd, rSquared: r2, lastObserved: lastObserved,
                           meanLogDay: meanX, sxx: sxx)
    }

    /// The projected LTV on a day.
    /// The projected LTV on a day; from the last fitted day on, never below the observed LTV.
    public func predict(day: Int) -> Double {
        let curve = a * pow(Double(max(day, 1)), b)
        return day >= toDay ? max(curve, lastObserved) : curve
    }

    /// The interval around the projection on a day (see the type's documentation).
    public func interval(day: Int) -> (low: Double, high: Double) {
        let x = log(Double(max(day, 1)))
        let n = Double(points)
        let standardError = residualSD * (1 + 1 / n + (x - meanLogDay) * (x - meanLogDay) / sxx).squareRoot()
        let risk = Self.extrapolationRisk * max(0, log(Double(day) / Double(toDay)))
        let halfWidth = Self.z * standardError + risk
        let center = log(a) + b * x
        let floor = day >= toDay ? lastObserved : 0
        return (max(exp(center - halfWidth), floor), max(exp(center + halfWidth), predict(day: day)))
    }

    /// How reports state the model.
    public var modelDescription: String {
        "LTV(d) = a * d^b (b >= 0), install-weighted least squares on log-log over days \(fromDay)-\(toDay)"
    }
}
