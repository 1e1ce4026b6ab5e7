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

/// A network's response curve, installs = a * spend^b * exp(weekday effect), fitted by ordinary
/// least squares on (ln spend, ln installs) with one dummy per weekday present (the first present
/// weekday is the reference).
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
    /// Nominal 90% interval of b (Student t on the residual degrees of freedom).
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

    public func expectedInstalls(spend: Double, weekday: Int? = nil) -> Double {
        let effect = weekday.map { weekdayEffects[$0] } ?? 0
        return a * pow(spend, b) * exp(effect)
    }

    /// The daily spend that buys `installs` on the curve on this weekday (the average weekday when nil).
    public func spend(forInstalls installs: Double, weekday: Int? = nil) -> Double {
        let effect = weekday.map { weekdayEffects[$0] } ?? 0
        return pow(installs / (a * exp(effect)), 1 / b)
    }

    /// The CPI the curve expects on a day of this spend and weekday.
    public func expectedCPI(spend: Double, weekday: Int? = nil) -> Double {
        spend / expectedInstalls(spend: spend, weekday: weekday)
    }

    /// Cost of the next install at this daily spend on a typical day.
    public func marginalCPI(spend: Double) -> Double { pow(spend, 1 - b) / (a * b) }

    /// The daily spend at which the marginal CPI reaches `cpi`; nil when b = 1 (the marginal CPI
    /// is then the same at every spend).
    public func spend(whereMarginalCPIReaches cpi: Double) -> Double? {
        guard b < 1, cpi > 0 else { return nil }
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
        let usable = days.filter(\.isUsable)
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
        let present = Array(Set(usable.map(\.weekday))).sorted()
        let dummies = Array(present.dropFirst())
        let columns = 2 + dummies.count
        let rows = usable.map { day -> [Double] in
            [1, log(day.spend)] + dummies.map { day.weekday == $0 ? 1 : 0 }
        }
        let y = usable.map { log($0.installs) }
        guard usable.count > columns,
              let inverse = invert(gram(rows)) else {
            return .notEnoughHistory("not enough spend history: too few days for a curve with weekday effects")
        }
        var xty = [Double](repeating: 0, count: columns)
        for (row, value) in zip(rows, y) { for j in 0..<columns { xty[j] += row[j] * value } }
        let beta = (0..<columns).map { i in (0..<columns).reduce(0) { $0 + inverse[i][$1] * xty[$1] } }
        let fitted = rows.map { row in zip(row, beta).reduce(0) { $0 + $1.0 * $1.1 } }
        let rss = zip(y, fitted).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }
        let meanY = y.reduce(0, +) / Double(y.count)
        let tss = y.reduce(0) { $0 + ($1 - meanY) * ($1 - meanY) }
        let degrees = usable.count - columns
        let variance = rss / Double(degrees)
        let standardError = sqrt(max(variance * inverse[1][1], 0))
        let estimate = beta[1]
        guard estimate > 0 else {
            return .notEnoughHistory(String(format: "no response to spend: installs do not rise with spend (b = %.2f)", estimate))
        }
        var effects = [Double](repeating: 0, count: 7)
        for (index, weekday) in dummies.enumerated() { effects[weekday] = beta[2 + index] }
        let meanEffect = present.reduce(0) { $0 + effects[$1] } / Double(present.count)
        for weekday in present { effects[weekday] -= meanEffect }
        let half = studentT95(degrees: degrees) * standardError
        let spends = usable.map(\.spend)
        return .fitted(SpendResponseFit(
            a: exp(beta[0] + meanEffect), b: min(estimate, 1), estimatedB: estimate, standardError: standardError,
            low: estimate - half, high: estimate + half, points: usable.count,
            rSquared: tss > 0 ? 1 - rss / tss : 1, residualSD: sqrt(variance), weekdayEffects: effects,
            spendRange: spends.min()!...spends.max()!))
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
            let expected = curve.map { $0.spend(forInstalls: day.installs * exp(centre), weekday: day.weekday) / day.installs }
                ?? exp(centre)
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
