import Foundation

/// The LTV projection model: LTV(d) = a * d^b, fitted by ordinary least squares on
/// (ln d, ln LTV(d)) over the observed days `fromDay...toDay`.
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
    let meanLogDay: Double
    let sxx: Double

    /// z of the stated interval (nominal 90%).
    public static let z = 1.645
    /// Widening of the log-space half-width per unit of ln(horizon / last fitted day).
    public static let extrapolationRisk = 0.35
    /// Fewest points a fit needs.
    public static let minimumPoints = 5

    /// Fits LTV(d) = a * d^b to the points with day >= 1 and ltv > 0. When the curve reaches at
    /// least day 21, the first week (dominated by first purchases) is left out and the fit starts
    /// at day 7. Returns nil with fewer than `minimumPoints` usable points.
    public static func fit(days: [Int], values: [Double]) -> PowerLawFit? {
        let usable = zip(days, values).filter { $0.0 >= 1 && $0.1 > 0 && $0.1.isFinite }
        guard let lastDay = usable.map(\.0).max() else { return nil }
        let firstDay = lastDay >= 21 ? 7 : 1
        let chosen = usable.filter { $0.0 >= firstDay }
        guard chosen.count >= minimumPoints else { return nil }
        let xs = chosen.map { log(Double($0.0)) }
        let ys = chosen.map { log($0.1) }
        let n = Double(xs.count)
        let meanX = xs.reduce(0, +) / n
        let meanY = ys.reduce(0, +) / n
        var sxx = 0.0
        var sxy = 0.0
        var syy = 0.0
        for (x, y) in zip(xs, ys) {
            sxx += (x - meanX) * (x - meanX)
            sxy += (x - meanX) * (y - meanY)
            syy += (y - meanY) * (y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        var sse = 0.0
        for (x, y) in zip(xs, ys) {
            let residual = y - (intercept + slope * x)
            sse += residual * residual
        }
        let sd = xs.count > 2 ? (sse / (n - 2)).squareRoot() : 0
        let r2 = syy > 0 ? max(0, 1 - sse / syy) : 1
        return PowerLawFit(a: exp(intercept), b: slope, points: chosen.count, fromDay: chosen.map(\.0).min()!,
                           toDay: lastDay, residualSD: sd, rSquared: r2, meanLogDay: meanX, sxx: sxx)
    }

    /// The projected LTV on a day.
    public func predict(day: Int) -> Double {
        a * pow(Double(max(day, 1)), b)
    }

    /// The interval around the projection on a day (see the type's documentation).
    public func interval(day: Int) -> (low: Double, high: Double) {
        let x = log(Double(max(day, 1)))
        let n = Double(points)
        let standardError = residualSD * (1 + 1 / n + (x - meanLogDay) * (x - meanLogDay) / sxx).squareRoot()
        let risk = Self.extrapolationRisk * max(0, log(Double(day) / Double(toDay)))
        let halfWidth = Self.z * standardError + risk
        let center = log(a) + b * x
        return (exp(center - halfWidth), exp(center + halfWidth))
    }

    /// How reports state the model.
    public var modelDescription: String {
        "LTV(d) = a * d^b, least squares on log-log over days \(fromDay)-\(toDay)"
    }
}
