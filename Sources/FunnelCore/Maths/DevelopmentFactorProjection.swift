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
///
/// A linear tail is only fitted when the later half's daily increments show no falling trend
/// (their install-weighted regression on the day less than `minimumDecayT` standard errors below
/// zero). It may still win the back-test, whose short held-out histories show little of any
/// trend; an app whose whole history then shows its growth slowing is projected by the next
/// method of the ranking. On a power-law curve the linear tail won the back-test and projected
/// D365 half again too high before this rule.
///
/// `fitLinearTail` keeps the developed curve and continues it in a straight line: each day past
/// it adds the install-weighted mean increment of the developed days' later half. It is a method
/// of its own (`LTVMethod.linearTail`) for the back-test to choose: on a curve that turns linear
/// after a front-loaded start, the fitted tails read the noise of the last, thin days as a decay
/// (fitted on logarithms, a few low days weigh more than as many high ones) and a year's
/// projection came out a quarter low, while telling a slow decay from noise on the days at hand
/// is beyond any test: when the later days grow evenly, the back-test says so.
public struct DevelopmentFactorProjection: Sendable, Equatable {
    /// LTV on days 0...lastDay by development.
    public let curve: [Double]
    /// The shape of the daily increments past the developed days.
    public enum Tail: String, Sendable, Equatable {
        /// k · d^(−rate)
        case power
        /// k · e^(−rate · d)
        case exponential
        /// k every day
        case linear
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

    /// The developed curve continued by the mean increment of its later half; nil with fewer than
    /// `minimumLinearDays` developed days past day 0 or no growth in that half.
    public static func fitLinearTail(_ triangle: CohortTriangle) -> DevelopmentFactorProjection? {
        let installs = triangle.installsByDay()
        guard let curve = developedCurve(triangle, installs: installs), curve.count - 1 >= minimumLinearDays else { return nil }
        let last = curve.count - 1
        var weight = 0.0
        var growth = 0.0
        for day in (last / 2 + 1)...last {
            weight += installs[day]
            growth += installs[day] * (curve[day] - curve[day - 1])
        }
        guard weight > 0, growth > 0 else { return nil }
        let increments = ((last / 2 + 1)...last).map { (x: Double($0), y: curve[$0] - curve[$0 - 1], w: installs[$0]) }
        if let trend = weightedLine(increments), trend.slope < -minimumDecayT * trend.slopeError { return nil }
        return DevelopmentFactorProjection(curve: curve, tail: .linear, tailK: growth / weight, tailRate: 0)
    }

    /// Fewest developed days past day 0 the linear tail needs (its later half then spans 4 days).
    public static let minimumLinearDays = 7
    /// How many standard errors below zero the trend of the later half's daily increments may lie
    /// before the linear tail declines to fit: a curve whose growth is seen slowing is not linear.
    public static let minimumDecayT = 2.0

    /// Nil when the triangle has too few supported days for a tail.
    public static func fit(_ triangle: CohortTriangle) -> DevelopmentFactorProjection? {
        let installs = triangle.installsByDay()
        guard let curve = developedCurve(triangle, installs: installs) else { return nil }
        let lastDay = curve.count - 1
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

    /// LTV on days 0...lastDay by development; nil before day 1 is backed by `minimumSupport`.
    static func developedCurve(_ triangle: CohortTriangle, installs: [Double]) -> [Double]? {
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
        return curve
    }

    /// Weighted least squares y = intercept + slope * x, with its weighted mean squared residual
    /// and the slope's standard error (the weights taken as inverse variances up to a common
    /// scale, estimated from the residuals; infinite with two points or fewer).
    static func weightedLine(_ points: [(x: Double, y: Double, w: Double)])
        -> (intercept: Double, slope: Double, sse: Double, meanX: Double, slopeError: Double)? {
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
        let residuals = points.reduce(0) { $0 + $1.w * pow($1.y - intercept - slope * $1.x, 2) }
        let slopeError = points.count > 2 ? (residuals / Double(points.count - 2) / sxx).squareRoot() : .infinity
        return (intercept, slope, residuals / totalWeight, meanX, slopeError)
    }

    /// LTV on a day: the developed curve inside the triangle, the tail past it.
    public func predict(day: Int) -> Double {
        if day <= lastDay { return curve[max(day, 0)] }
        var total = curve[lastDay]
        for d in (lastDay + 1)...day {
            switch tail {
            case .power: total += tailK * pow(Double(d), -tailRate)
            case .exponential: total += tailK * exp(-tailRate * Double(d))
            case .linear: total += tailK
            }
        }
        return total
    }

    /// How reports state the model.
    public var modelDescription: String {
        let increments = switch tail {
        case .power: "k * d^-\(String(format: "%.3f", tailRate))"
        case .exponential: "k * exp(-\(String(format: "%.4f", tailRate)) d)"
        case .linear: "of \(String(format: "%.4f", tailK)) USD per install (the mean of days \(lastDay / 2 + 1)-\(lastDay))"
        }
        return "development factors to day \(lastDay), then daily increments \(increments)"
    }
}
