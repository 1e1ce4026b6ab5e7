import Foundation

/// Fisher's exact test on a 2x2 table, two-sided, computed exactly from log-factorials so it is
/// valid for any counts, small or large.
///
/// Table layout: `[[a, b], [c, d]]` = rows (hit, not hit) x columns (dropped, stayed).
public enum FisherExactTest {
    /// The two-sided p-value: the probability, under independence with the margins fixed, of a
    /// table at most as likely as the observed one (R's and scipy's definition).
    public static func twoSidedPValue(a: Int, b: Int, c: Int, d: Int) -> Double {
        precondition(a >= 0 && b >= 0 && c >= 0 && d >= 0, "counts are never negative")
        let row1 = a + b, row2 = c + d, column1 = a + c, n = a + b + c + d
        guard n > 0, row1 > 0, row2 > 0, column1 > 0, column1 < n else { return 1 }
        let constant = logFactorial(row1) + logFactorial(row2) + logFactorial(column1) + logFactorial(n - column1)
            - logFactorial(n)
        func logProbability(_ x: Int) -> Double {
            constant - logFactorial(x) - logFactorial(row1 - x) - logFactorial(column1 - x)
                - logFactorial(row2 - column1 + x)
        }
        let observed = logProbability(a)
        // Relative tolerance as R uses, so tables equal to the observed one up to rounding count.
        let threshold = observed + log1p(1e-7)
        var total = 0.0
        for x in max(0, column1 - row2)...min(row1, column1) {
            let value = logProbability(x)
            if value <= threshold { total += exp(value) }
        }
        return min(1, total)
    }

    /// log(n!) through the log-gamma function.
    public static func logFactorial(_ n: Int) -> Double {
        lgamma(Double(n) + 1)
    }
}

/// Benjamini-Hochberg control of the false discovery rate over a family of tests.
public enum BenjaminiHochberg {
    /// The BH-adjusted p-values (q-values), in the input order: `q_(i) = min_{j>=i} p_(j) m / j`,
    /// at most 1. A test is a discovery at FDR level `q` when its adjusted value is <= `q`.
    public static func adjusted(_ pValues: [Double]) -> [Double] {
        let m = pValues.count
        guard m > 0 else { return [] }
        let order = pValues.indices.sorted { pValues[$0] < pValues[$1] }
        var adjusted = [Double](repeating: 1, count: m)
        var running = 1.0
        for rank in stride(from: m, through: 1, by: -1) {
            let index = order[rank - 1]
            running = min(running, pValues[index] * Double(m) / Double(rank))
            adjusted[index] = min(1, running)
        }
        return adjusted
    }
}
