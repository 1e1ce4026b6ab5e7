import Foundation

/// The development-factor (chain-ladder) projection of a cohort revenue triangle.
///
/// Inside the triangle: LTV(0) is day 0's revenue over all installs, and each next day grows by
/// the volume-weighted development factor f(d) = Σ C_c(d+1) / Σ C_c(d) over the cohorts c mature
/// for d + 1 (C_c: cumulative revenue), so young cohorts count for the days they have reached. A
/// day whose cohorts had no revenue yet grows by its revenue per install instead. The curve is
/// followed up to `lastDay`, the last day backed by at least `minimumSupport` of the installs.
///
/// Past it, the tail: the daily increment of that curve, averaged over log-spaced bins of days
/// (from day 7 when the curve reaches day 21, else day 1), is fitted by install-weighted least
/// squares on its logarithm both as k · d^(−γ) (γ >= 0, so the curve grows at most linearly) and
/// as k · e^(−λd), and the better fit is summed day by day to the horizon. The power tail follows
/// a curve that turns linear after a front-loaded start (γ near 0) and a power law (γ = 1 − b);
/// the exponential one a saturating curve, which a power tail overshoots. A ratio tail (the
/// Sherman curve on f(d) − 1) overshot the linear case twofold.
public struct DevelopmentFactorProjection: Sendable, Equatable {
    /// LTV on days 0...lastDay by development.
    public let curve: [Double]
    /// The shape of the daily increments past the developed days.
    public enum Tail: String, Sendable, Equatable {
        /// k · d^(−rate)
        case power
        /// k · e^(−rate · d)
        case exponential
    }

    public let tail: Tail
    public let tailK: Double
    /// γ of the power tail, or the decay per day of the exponential one.
    public let tailRate: Double

    /// Share of day 0's installs the last developed day must keep.
    public static let minimumSupport = 0.1
    /// Fewest bins the tail is fitted on.
    public static let minimumBins = 3

    public var lastDay: Int { curve.count - 1 }

    /// Nil when the triangle has too few supported days for a tail.
    public static func fit(_ triangle: CohortTriangle) -> DevelopmentFactorProjection? {
        let installs = triangle.installsByDay()
        let lastDay = triangle.lastDay(backedBy: minimumSupport)
        guard lastDay >= 1, let allInstalls = installs.first, allInstalls > 0 else { return nil }
        let incremental = triangle.incrementalCurve()
        var curve = [Double](repeating: 0, count: lastDay + 1)
        curve[0] = incremental[0]
        // Σ C_c(d − 1) and Σ C_c(d) over the cohorts mature for d, one pass per cohort.
        var before = [Double](repeating: 0, count: lastDay + 1)
        var after = [Double](repeating: 0, count: lastDay + 1)
        for cohort in triangle.cohorts {
            var cumulative = 0.0
            for (day, revenue) in cohort.revenueByDay.enumerated() where day <= lastDay {
                if day > 0 { before[day] += cumulative }
                cumulative += revenue
                after[day] += cumulative
            }
        }
        for day in 1...lastDay {
            let (before, after) = (before[day], after[day])
            curve[day] = before > 0 && curve[day - 1] > 0 ? curve[day - 1] * after / before : curve[day - 1] + incremental[day]
        }
        // Log-spaced bins of the developed increments.
        let first = lastDay >= 21 ? 7 : 1
        var bins: [(x: Double, y: Double, w: Double)] = []
        var start = first
        while start <= lastDay {
            let end = min(lastDay, max(start, Int((Double(start) * 1.4).rounded(.down)) - 1))
            var weight = 0.0
            var growth = 0.0
            var logDays = 0.0
            for day in start...end {
                weight += installs[day]
                growth += installs[day] * (curve[day] - curve[day - 1])
                logDays += log(Double(day))
            }
            let days = Double(end - start + 1)
            if weight > 0 && growth > 0 { bins.append((logDays / days, log(growth / weight), weight)) }
            start = end + 1
        }
        guard bins.count >= minimumBins else { return nil }
        // Both tails fitted on ln(increment): against ln d (power) and against d (exponential).
        let power = weightedLine(bins.map { ($0.x, $0.y, $0.w) })
        let exponential = weightedLine(bins.map { (exp($0.x), $0.y, $0.w) })
        guard let power else { return nil }
        if let exponential, exponential.slope < 0, exponential.sse < power.sse {
            return DevelopmentFactorProjection(curve: curve, tail: .exponential, tailK: exp(exponential.intercept),
                                               tailRate: -exponential.slope)
        }
        return DevelopmentFactorProjection(curve: curve, tail: .power, tailK: exp(power.slope > 0 ? power.intercept + power.slope * power.meanX : power.intercept),
                                           tailRate: max(0, -power.slope))
    }

    /// Weighted least squares y = intercept + slope * x, with its weighted residual sum of squares.
    static func weightedLine(_ points: [(x: Double, y: Double, w: Double)])
        -> (intercept: Double, slope: Double, sse: Double, meanX: Double)? {
        let totalWeight = points.reduce(0) { $0 + $1.w }
        guard totalWeight > 0 else { return nil }
        let meanX = points.reduce(0) { $0 + $1.w * $1.x } / totalWeight
        let meanY = points.reduce(0) { $0 + $1.w * $1.y } / totalWeight
        var sxx = 0.0
        var sxy = 0.0
        for point in points {
            sxx += point.w * (point.x - meanX) * (point.x - meanX)
            sxy += point.w * (point.x - meanX) * (point.y - meanY)
        }
        guard sxx > 0 else { return nil }
        let slope = sxy / sxx
        let intercept = meanY - slope * meanX
        let sse = points.reduce(0) { $0 + $1.w * pow($1.y - intercept - slope * $1.x, 2) } / totalWeight
        return (intercept, slope, sse, meanX)
    }

    /// LTV on a day: the developed curve inside the triangle, the tail past it.
    public func predict(day: Int) -> Double {
        if day <= lastDay { return curve[max(day, 0)] }
        var total = curve[lastDay]
        for d in (lastDay + 1)...day {
            total += tail == .power ? tailK * pow(Double(d), -tailRate) : tailK * exp(-tailRate * Double(d))
        }
        return total
    }

    /// How reports state the model.
    public var modelDescription: String {
        let increments = tail == .power ? "k * d^-\(String(format: "%.3f", tailRate))"
            : "k * exp(-\(String(format: "%.4f", tailRate)) d)"
        return "development factors to day \(lastDay), then daily increments \(increments)"
    }
}
