import Foundation

/// One day of a network's paid acquisition: what it spent and the paid installs it bought.
public struct SpendDay: Sendable, Equatable {
    /// Days since 1970-01-01 (any monotone day number works; it orders the days).
    public let day: Int
    /// 0 = Monday ... 6 = Sunday.
    public let weekday: Int
    public let spend: Double
    public let installs: Double

    public init(day: Int, weekday: Int, spend: Double, installs: Double) {
        self.day = day
        self.weekday = weekday
        self.spend = spend
        self.installs = installs
    }

    /// Spend and installs both positive: the day has a CPI and a place on the log-log curve.
    public var isUsable: Bool { spend > 0 && installs > 0 && spend.isFinite && installs.isFinite }
    public var cpi: Double { spend / installs }
}

/// Which curve a network's figures come from (`SpendResponseFit.form`).
public enum SpendCurveForm: String, Sendable, Codable {
    /// installs = a * spend^b.
    case powerLaw = "power law"
    /// installs = M * spend / (K + spend): M installs a day at most, half of them at spend K.
    case saturating
}

/// The saturating curve installs = M * spend / (K + spend) * exp(weekday effect), fitted beside
/// the power law by least squares in log space (the same weekday dummies): for each K the rest is
/// linear, and K is searched on a log grid then by golden section. `capacity` (M) is the average
/// weekday's.
public struct SaturatingCurve: Sendable, Equatable {
    public let capacity: Double
    public let halfSaturationSpend: Double
    /// Akaike information criterion n ln(RSS / n) + 2k of the log-space fit.
    public let aic: Double
    public let weekdayEffects: [Double]
}

/// A network's response curve, installs = a * spend^b * exp(weekday effect), fitted by ordinary
/// least squares on (ln spend, ln installs) with one dummy per weekday present (the first present
/// weekday is the reference), beside the saturating curve (`SaturatingCurve`); `form` says which
/// one the derived figures (expected installs, marginal CPI, headroom) come from: the saturating
/// curve when its AIC is at least `SpendResponse.formAICMargin` below the power law's (both have
/// the same number of parameters, so that is a smaller residual sum of squares by a factor
/// exp(-2 / n)), the power law otherwise.
///
/// The interval of b is honest about noisy days: it is the wider of the ordinary t interval and a
/// moving-block bootstrap over weeks of days (`SpendResponse.bootstrapReplicates` resamples of
/// 7-day blocks, refitted; 5th and 95th percentiles), and `standardError` the larger of the two
/// standard errors. Residuals that are autocorrelated or grow on small days make the ordinary
/// interval too narrow; the bootstrap keeps the days' dependence and their spread.
///
/// `a` is the curve of the average weekday: the intercept plus the mean of the weekday effects,
/// so `expectedInstalls(spend:)` is what a day of that spend buys on a typical day. Marginal CPI is
/// d(spend)/d(installs) = spend^(1-b) / (a b), the average CPI on the curve spend^(1-b) / a: for a
/// power law their ratio is 1/b at every spend, so b alone says how saturated a network is.
/// The estimate of b is reported as fitted and clamped to (0, 1] for the derived figures.
public struct SpendResponseFit: Sendable, Equatable {
    public let a: Double
    /// The exponent used for the derived figures: the estimate clamped to at most 1.
    public let b: Double
    /// The unclamped least-squares estimate.
    public let estimatedB: Double
    public let standardError: Double
    /// The ordinary least-squares standard error of b, which assumes independent, equal-variance days.
    public let ordinaryStandardError: Double
    /// Nominal 90% interval of b (the wider of Student t and the block bootstrap).
    public let low: Double
    public let high: Double
    public let points: Int
    public let rSquared: Double
    /// Standard deviation of the residuals in log space.
    public let residualSD: Double
    /// Log multiplier on installs per weekday (0 = Monday), relative to the average weekday; 0
    /// for a weekday absent from the data.
    public let weekdayEffects: [Double]
    /// Smallest and largest daily spend fitted.
    public let spendRange: ClosedRange<Double>
    /// Akaike information criterion of the power law's log-space fit.
    public let aicPowerLaw: Double
    /// The saturating curve fitted beside it (nil when its search found no finite K).
    public let saturating: SaturatingCurve?
    /// The curve the derived figures come from.
    public let form: SpendCurveForm

    /// Installs a day of this spend buys on the chosen curve, on this weekday (the average weekday when nil).
    public func expectedInstalls(spend: Double, weekday: Int? = nil) -> Double {
        if form == .saturating, let curve = saturating {
            let effect = weekday.map { curve.weekdayEffects[$0] } ?? 0
            return curve.capacity * exp(effect) * spend / (curve.halfSaturationSpend + spend)
        }
        let effect = weekday.map { weekdayEffects[$0] } ?? 0
        return a * pow(spend, b) * exp(effect)
    }

    /// The daily spend that buys `installs` on the curve on this weekday (the average weekday when
    /// nil); infinite when a saturating curve never reaches that many.
    public func spend(forInstalls installs: Double, weekday: Int? = nil) -> Double {
        if form == .saturating, let curve = saturating {
            let capacity = curve.capacity * exp(weekday.map { curve.weekdayEffects[$0] } ?? 0)
            return installs < capacity ? curve.halfSaturationSpend * installs / (capacity - installs) : .infinity
        }
        let effect = weekday.map { weekdayEffects[$0] } ?? 0
        return pow(installs / (a * exp(effect)), 1 / b)
    }

    /// The CPI the curve expects on a day of this spend and weekday.
    public func expectedCPI(spend: Double, weekday: Int? = nil) -> Double {
        spend / expectedInstalls(spend: spend, weekday: weekday)
    }

    /// Cost of the next install at this daily spend on a typical day: spend^(1-b) / (a b) on the
    /// power law, (K + spend)^2 / (M K) on the saturating curve.
    public func marginalCPI(spend: Double) -> Double {
        if form == .saturating, let curve = saturating {
            let k = curve.halfSaturationSpend
            return (k + spend) * (k + spend) / (curve.capacity * k)
        }
        return pow(spend, 1 - b) / (a * b)
    }

    /// The daily spend at which the marginal CPI reaches `cpi`: (a b cpi)^(1/(1-b)) on the power
    /// law, nil when b = 1 (the marginal CPI is then the same at every spend); sqrt(M K cpi) - K on
    /// the saturating curve, nil when the first install already costs more (K / M > cpi).
    public func spend(whereMarginalCPIReaches cpi: Double) -> Double? {
        guard cpi > 0 else { return nil }
        if form == .saturating, let curve = saturating {
            let k = curve.halfSaturationSpend
            let spend = sqrt(curve.capacity * k * cpi) - k
            return spend > 0 ? spend : nil
        }
        guard b < 1 else { return nil }
        return pow(a * b * cpi, 1 / (1 - b))
    }
}

/// Why a network has no response curve.
public enum SpendResponseOutcome: Sendable, Equatable {
    case fitted(SpendResponseFit)
    case notEnoughHistory(String)
}

/// A day whose CPI is abnormally high against the network's own trend.
public struct InflatedSpendDay: Sendable, Equatable {
    public let day: SpendDay
    /// What the day's installs would have cost at the trend: the spend the curve, shifted by the
    /// neighbours' median ratio, needs for that many installs on that weekday, per install
    /// (without a curve: the neighbours' median CPI).
    public let expectedCPI: Double
    public let robustZ: Double
    /// spend - installs * expectedCPI.
    public var excessCost: Double { day.spend - day.installs * expectedCPI }
}

/// Response curves and peak-day inflation from daily spend and paid installs (see
/// docs/metrics.md, "Spend response").
public enum SpendResponse {
    /// Fewest days with spend and installs a curve needs.
    public static let minimumDays = 14
    /// Smallest standard deviation of ln(daily spend) a curve needs (about 10% swings): with less,
    /// the slope is noise.
    public static let minimumLogSpendSD = 0.1
    /// z of the interval on b (nominal 90%).
    public static let z = 1.645
    /// The saturating curve is chosen when its AIC is at least this much below the power law's.
    public static let formAICMargin = 2.0
    /// Residual variance (log space) below which a fit counts as exact in the AIC: two exact fits
    /// tie, and a tie keeps the power law.
    static let rssFloor = 1e-12
    /// Block-bootstrap resamples behind the interval of b, and the block length in days (also the
    /// Newey-West lags).
    public static let bootstrapReplicates = 200
    public static let bootstrapBlockDays = 7
    /// A network is saturated when its marginal CPI is at least this many times its average CPI
    /// (for a power law, b < 1 / 1.3 = 0.77) and the interval's high end of b is below 1.
    public static let saturationRatio = 1.3
    /// Neighbours each side (in days with spend) of the rolling median an inflated day is judged against.
    public static let rollingHalfWindow = 14
    /// Fewest neighbours a day needs to be judged.
    public static let minimumNeighbours = 7
    /// A day is inflated when its robust z (excess log CPI ratio over 1.4826 * MAD) exceeds this...
    public static let inflationZ = 3.5
    /// ...and its CPI is at least this many times the trend's.
    public static let inflationRatio = 1.3

    /// The curve and the inflated days of one network's history. Inflated days are found against
    /// a first fit on every usable day, then left out of the final fit (and judged again against
    /// it), so a few peak days neither bend the curve nor hide among its residuals.
    public static func analyse(_ days: [SpendDay]) -> (outcome: SpendResponseOutcome, inflated: [InflatedSpendDay]) {
        let sorted = days.filter(\.isUsable).sorted { $0.day < $1.day }
        var outcome = fit(sorted)
        var inflated = inflatedDays(sorted, curve: outcome.curve)
        if case .fitted = outcome, !inflated.isEmpty {
            let flagged = Set(inflated.map(\.day.day))
            let refit = fit(sorted.filter { !flagged.contains($0.day) })
            if case .fitted = refit { outcome = refit }
            inflated = inflatedDays(sorted, curve: outcome.curve)
        }
        return (outcome, inflated)
    }

    /// Fits the curve on the usable days, or says why not.
    public static func fit(_ days: [SpendDay]) -> SpendResponseOutcome {
        let usable = days.filter(\.isUsable).sorted { $0.day < $1.day }
        guard usable.count >= minimumDays else {
            return .notEnoughHistory("not enough spend history: \(usable.count) days with spend and installs (needs \(minimumDays))")
        }
        let logSpend = usable.map { log($0.spend) }
        let meanLogSpend = logSpend.reduce(0, +) / Double(usable.count)
        let spendSD = sqrt(logSpend.reduce(0) { $0 + ($1 - meanLogSpend) * ($1 - meanLogSpend) } / Double(usable.count - 1))
        guard spendSD >= minimumLogSpendSD else {
            return .notEnoughHistory(String(format: "not enough spend history: daily spend hardly varies (sd of ln spend %.3f, needs %.2f)",
                                            spendSD, minimumLogSpendSD))
        }
        guard let power = powerLawRegression(usable) else {
            return .notEnoughHistory("not enough spend history: too few days for a curve with weekday effects")
        }
        guard power.slope > 0 else {
            return .notEnoughHistory(String(format: "no response to spend: installs do not rise with spend (b = %.2f)", power.slope))
        }
        let degrees = usable.count - power.columns
        let half = studentT95(degrees: degrees) * power.standardError
        var standardError = max(power.standardError, power.neweyWestStandardError)
        let spread = bootstrapSlopes(usable)
        if let spread { standardError = max(standardError, spread.standardError) }
        let robustHalf = studentT95(degrees: degrees) * standardError
        var low = power.slope - max(half, robustHalf), high = power.slope + max(half, robustHalf)
        if let spread {
            low = min(low, spread.low)
            high = max(high, spread.high)
        }
        let n = Double(usable.count)
        let aicPower = n * log(max(power.rss, n * rssFloor) / n) + 2 * Double(power.columns + 1)
        let saturating = saturatingCurve(usable, parameters: power.columns + 1)
        let form: SpendCurveForm = (saturating.map { $0.aic <= aicPower - formAICMargin } ?? false) ? .saturating : .powerLaw
        let spends = usable.map(\.spend)
        return .fitted(SpendResponseFit(
            a: exp(power.intercept), b: min(power.slope, 1), estimatedB: power.slope, standardError: standardError,
            ordinaryStandardError: power.standardError, low: low, high: high, points: usable.count,
            rSquared: power.tss > 0 ? 1 - power.rss / power.tss : 1, residualSD: sqrt(power.rss / Double(degrees)),
            weekdayEffects: power.weekdayEffects, spendRange: spends.min()!...spends.max()!,
            aicPowerLaw: aicPower, saturating: saturating, form: form))
    }

    /// The log-log regression of one set of days: slope b, the intercept of the average weekday,
    /// weekday effects centred on the weekdays present, sums of squares and the ordinary standard
    /// error of b. Nil when the design is singular or has no residual degrees of freedom.
    struct PowerLawRegression {
        var intercept, slope, standardError, rss, tss: Double
        /// Newey-West standard error of b, prewhitened by an AR(1) of the scores (Bartlett weights,
        /// `bootstrapBlockDays` lags) and scaled by n / (n - columns): robust to residuals whose
        /// size varies and that follow each other.
        var neweyWestStandardError: Double
        var columns: Int
        var weekdayEffects: [Double]
    }

    static func powerLawRegression(_ usable: [SpendDay]) -> PowerLawRegression? {
        let present = Array(Set(usable.map(\.weekday))).sorted()
        let dummies = Array(present.dropFirst())
        let columns = 2 + dummies.count
        let rows = usable.map { day -> [Double] in
            [1, log(day.spend)] + dummies.map { day.weekday == $0 ? 1 : 0 }
        }
        let y = usable.map { log($0.installs) }
        guard usable.count > columns, let inverse = invert(gram(rows)) else { return nil }
        var xty = [Double](repeating: 0, count: columns)
        for (row, value) in zip(rows, y) { for j in 0..<columns { xty[j] += row[j] * value } }
        let beta = (0..<columns).map { i in (0..<columns).reduce(0) { $0 + inverse[i][$1] * xty[$1] } }
        let fitted = rows.map { row in zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 } }
        let rss = zip(y, fitted).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        let meanY = y.reduce(0, +) / Double(y.count)
        let tss = y.reduce(0) { $0 + ($1 - meanY) * ($1 - meanY) }
        let variance = rss / Double(usable.count - columns)
        var effects = [Double](repeating: 0, count: 7)
        for (index, weekday) in dummies.enumerated() { effects[weekday] = beta[2 + index] }
        let meanEffect = present.reduce(0) { $0 + effects[$1] } / Double(present.count)
        for weekday in present { effects[weekday] -= meanEffect }
        // b = sum_t q_t y_t with q_t the slope's row of (X'X)^-1 times x_t.
        let q = rows.map { row in (0..<columns).reduce(0) { $0 + inverse[1][$1] * row[$1] } }
        // Prewhitened (Andrews & Monahan 1992): an AR(1) of the scores is taken out, the rest
        // gets Bartlett weights, and the AR(1)'s long-run factor 1 / (1 - phi)^2 is put back.
        let scores = usable.indices.map { q[$0] * (y[$0] - fitted[$0]) }
        var lagged = 0.0, previous = 0.0
        for t in 1..<scores.count {
            lagged += scores[t] * scores[t - 1]
            previous += scores[t - 1] * scores[t - 1]
        }
        let phi = previous > 0 ? min(max(lagged / previous, -0.97), 0.97) : 0
        let whitened = (1..<scores.count).map { scores[$0] - phi * scores[$0 - 1] }
        var robust = whitened.reduce(0) { $0 + $1 * $1 }
        let lags = min(bootstrapBlockDays, whitened.count - 1)
        for lag in stride(from: 1, through: lags, by: 1) {
            let weight = 1 - Double(lag) / Double(lags + 1)
            var sum = 0.0
            for t in lag..<whitened.count { sum += whitened[t] * whitened[t - lag] }
            robust += 2 * weight * sum
        }
        robust *= Double(usable.count) / Double(whitened.count) / ((1 - phi) * (1 - phi))
        robust *= Double(usable.count) / Double(usable.count - columns)
        return PowerLawRegression(intercept: beta[0] + meanEffect, slope: beta[1],
                                  standardError: sqrt(max(variance * inverse[1][1], 0)), rss: rss, tss: tss,
                                  neweyWestStandardError: sqrt(max(robust, 0)), columns: columns, weekdayEffects: effects)
    }

    /// The 5th and 95th percentiles and the standard deviation of b over moving-block bootstrap
    /// resamples: `bootstrapReplicates` times, whole runs of `bootstrapBlockDays` consecutive days
    /// (wrapping at the end) drawn with replacement until the resample is as long as the history,
    /// then refitted. Seeded from the days, so a history always gets the same interval. Nil when
    /// fewer than half the resamples could be fitted.
    static func bootstrapSlopes(_ usable: [SpendDay]) -> (low: Double, high: Double, standardError: Double)? {
        let n = usable.count
        let block = min(bootstrapBlockDays, n)
        var random = DayMix(seed: UInt64(n) &* 0x9E37_79B9 &+ UInt64(bitPattern: Int64(usable[0].day)))
        var slopes: [Double] = []
        slopes.reserveCapacity(bootstrapReplicates)
        for _ in 0..<bootstrapReplicates {
            var sample: [SpendDay] = []
            sample.reserveCapacity(n + block)
            while sample.count < n {
                let start = random.below(n)
                for offset in 0..<block { sample.append(usable[(start + offset) % n]) }
            }
            if let fit = powerLawRegression(Array(sample.prefix(n))) { slopes.append(fit.slope) }
        }
        guard slopes.count * 2 >= bootstrapReplicates else { return nil }
        slopes.sort()
        let mean = slopes.reduce(0, +) / Double(slopes.count)
        let sd = sqrt(slopes.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(slopes.count - 1))
        func quantile(_ q: Double) -> Double {
            let position = q * Double(slopes.count - 1)
            let lower = Int(position.rounded(.down)), upper = min(lower + 1, slopes.count - 1)
            return slopes[lower] + (slopes[upper] - slopes[lower]) * (position - Double(lower))
        }
        return (quantile(0.05), quantile(0.95), sd)
    }

    /// The saturating curve's least-squares fit in log space: ln installs = ln M + ln spend -
    /// ln(K + spend) + weekday effects. For a given K the rest is an ordinary regression on the
    /// intercept and weekday dummies; ln K is searched on a 61-point grid from ln(smallest spend) - 4
    /// to ln(largest spend) + 6 and refined by golden section around the best point. `parameters`
    /// is the count behind the AIC (the power law's, the same here: M and K for a and b). Nil when K
    /// ends at the top of the grid: the curve is then a straight line, the power law with b = 1.
    static func saturatingCurve(_ usable: [SpendDay], parameters: Int) -> SaturatingCurve? {
        let present = Array(Set(usable.map(\.weekday))).sorted()
        let dummies = Array(present.dropFirst())
        let rows = usable.map { day -> [Double] in [1] + dummies.map { day.weekday == $0 ? 1 : 0 } }
        guard let inverse = invert(gram(rows)) else { return nil }
        let columns = rows[0].count
        let logInstalls = usable.map { log($0.installs) }
        let logSpend = usable.map { log($0.spend) }
        func solve(_ logK: Double) -> (rss: Double, beta: [Double]) {
            let k = exp(logK)
            let y = usable.indices.map { logInstalls[$0] - logSpend[$0] + log(k + usable[$0].spend) }
            var xty = [Double](repeating: 0, count: columns)
            for (row, value) in zip(rows, y) { for j in 0..<columns { xty[j] += row[j] * value } }
            let beta = (0..<columns).map { i in (0..<columns).reduce(0) { $0 + inverse[i][$1] * xty[$1] } }
            var rss = 0.0
            for (row, value) in zip(rows, y) {
                let fitted = zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 }
                rss += (value - fitted) * (value - fitted)
            }
            return (rss, beta)
        }
        let lowest = logSpend.min()! - 4, highest = logSpend.max()! + 6
        let steps = 60
        let grid = (0...steps).map { lowest + (highest - lowest) * Double($0) / Double(steps) }
        let scores = grid.map { solve($0).rss }
        let best = scores.indices.min { scores[$0] < scores[$1] }!
        guard best < steps else { return nil }
        var left = grid[max(best - 1, 0)], right = grid[min(best + 1, steps)]
        let ratio = (sqrt(5) - 1) / 2
        for _ in 0..<60 {
            let first = right - ratio * (right - left), second = left + ratio * (right - left)
            if solve(first).rss < solve(second).rss { right = second } else { left = first }
        }
        let logK = (left + right) / 2
        let (rss, beta) = solve(logK)
        var effects = [Double](repeating: 0, count: 7)
        for (index, weekday) in dummies.enumerated() { effects[weekday] = beta[1 + index] }
        let meanEffect = present.reduce(0) { $0 + effects[$1] } / Double(present.count)
        for weekday in present { effects[weekday] -= meanEffect }
        let n = Double(usable.count)
        return SaturatingCurve(capacity: exp(beta[0] + meanEffect), halfSaturationSpend: exp(logK),
                               aic: n * log(max(rss, n * rssFloor) / n) + 2 * Double(parameters), weekdayEffects: effects)
    }

    /// Days whose CPI, over the curve's expected CPI for their spend and weekday (the plain CPI
    /// without a curve), is abnormally high against the rolling median of their neighbours: robust
    /// z above `inflationZ` and at least `inflationRatio` times the median. With a curve the ratio
    /// is ln(expected installs / installs) at the day's spend. `days` must be usable and sorted by
    /// day.
    public static func inflatedDays(_ days: [SpendDay], curve: SpendResponseFit?) -> [InflatedSpendDay] {
        let baseline = days.map { day in curve?.expectedCPI(spend: day.spend, weekday: day.weekday) ?? 1 }
        let ratios = zip(days, baseline).map { log($0.0.cpi / $0.1) }
        var found: [InflatedSpendDay] = []
        for index in days.indices {
            let lower = max(0, index - rollingHalfWindow)
            let upper = min(days.count - 1, index + rollingHalfWindow)
            let neighbours = (lower...upper).filter { $0 != index }.map { ratios[$0] }
            guard neighbours.count >= minimumNeighbours else { continue }
            let centre = median(neighbours)
            let spread = 1.4826 * median(neighbours.map { abs($0 - centre) })
            let excess = ratios[index] - centre
            let robustZ = excess / max(spread, 1e-9)
            guard robustZ > inflationZ, excess >= log(inflationRatio) else { continue }
            let day = days[index]
            // The ratio is ln(expected installs / installs) with a curve: the trend buys
            // installs * e^centre at the spend the plain curve needs for them.
            var expected = curve.map { $0.spend(forInstalls: day.installs * exp(centre), weekday: day.weekday) / day.installs }
                ?? exp(centre)
            if !expected.isFinite, let curve { expected = curve.expectedCPI(spend: day.spend, weekday: day.weekday) * exp(-centre) }
            found.append(InflatedSpendDay(day: day, expectedCPI: expected, robustZ: robustZ))
        }
        return found
    }

    /// The median (mean of the middle two for an even count); 0 for no values.
    public static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// The 95th percentile of Student's t (a two-sided 90% interval), by the Cornish-Fisher
    /// expansion around the normal's 1.645 (within 0.5% of the table from 5 degrees of freedom).
    static func studentT95(degrees: Int) -> Double {
        let n = Double(max(degrees, 1))
        let z3 = z * z * z
        let z5 = z3 * z * z
        return z + (z3 + z) / (4 * n) + (5 * z5 + 16 * z3 + 3 * z) / (96 * n * n)
    }

    private static func gram(_ rows: [[Double]]) -> [[Double]] {
        let columns = rows.first?.count ?? 0
        var result = [[Double]](repeating: [Double](repeating: 0, count: columns), count: columns)
        for row in rows { for i in 0..<columns { for j in 0..<columns { result[i][j] += row[i] * row[j] } } }
        return result
    }

    /// Gauss-Jordan inverse with partial pivoting; nil when singular.
    private static func invert(_ matrix: [[Double]]) -> [[Double]]? {
        let n = matrix.count
        var a = matrix
        var inverse = (0..<n).map { i in (0..<n).map { $0 == i ? 1.0 : 0.0 } }
        for column in 0..<n {
            guard let pivot = (column..<n).max(by: { abs(a[$0][column]) < abs(a[$1][column]) }),
                  abs(a[pivot][column]) > 1e-10 else { return nil }
            a.swapAt(column, pivot)
            inverse.swapAt(column, pivot)
            let scale = a[column][column]
            for j in 0..<n { a[column][j] /= scale; inverse[column][j] /= scale }
            for row in 0..<n where row != column {
                let factor = a[row][column]
                guard factor != 0 else { continue }
                for j in 0..<n { a[row][j] -= factor * a[column][j]; inverse[row][j] -= factor * inverse[column][j] }
            }
        }
        return inverse
    }
}

extension SpendResponseOutcome {
    /// The fitted curve, if any.
    public var curve: SpendResponseFit? {
        if case .fitted(let fit) = self { return fit }
        return nil
    }
}

/// SplitMix64, the bootstrap's seeded source of block starts.
struct DayMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform on 0..<n.
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
