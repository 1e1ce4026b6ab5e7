import Foundation

/// Special functions the purchase models need: log-gamma, log-beta and the Gaussian
/// hypergeometric function 2F1, all in `Double`.
public enum SpecialFunctions {
    /// ln Γ(x) for x > 0 (ln |Γ(x)| otherwise). Uses the reentrant `lgamma_r`: plain `lgamma`
    /// writes the global `signgam`, a data race when fits run concurrently.
    public static func logGamma(_ x: Double) -> Double {
        var sign: Int32 = 0
        return lgamma_r(x, &sign)
    }

    /// ln B(a, b) = ln Γ(a) + ln Γ(b) − ln Γ(a + b).
    public static func logBeta(_ a: Double, _ b: Double) -> Double {
        logGamma(a) + logGamma(b) - logGamma(a + b)
    }

    /// ln(e^x + e^y) without overflow.
    public static func logSumExp(_ x: Double, _ y: Double) -> Double {
        let high = max(x, y)
        if high == -.infinity { return -.infinity }
        return high + log(exp(x - high) + exp(y - high))
    }

    /// The hypergeometric series at most this many terms long before giving up.
    public static let hypergeometricMaximumTerms = 200_000

    /// ln 2F1(a, b; c; z) for 0 <= z < 1, where 2F1 is positive (as everywhere the models use it:
    /// a, b > 0 and c > 0 or a, b, c such that the sum stays positive). Returns NaN when the series
    /// does not converge within `hypergeometricMaximumTerms` terms, when z is outside [0, 1), or
    /// when the value is not positive.
    ///
    /// The power series Σ (a)_n (b)_n / ((c)_n n!) zⁿ is summed with a running scale, so terms far
    /// beyond `Double`'s range (large a and b near z = 1) are fine, and stopped when the bound on the
    /// tail, |term|·ρ/(1 − ρ) with ρ the larger of the current term ratio and z, is below 1e-16 of
    /// the sum. When c − a − b < 0 the series' terms grow like n^(a+b−c−1) zⁿ, slow and huge near
    /// z = 1; Euler's transformation 2F1(a, b; c; z) = (1 − z)^(c−a−b) 2F1(c − a, c − b; c; z)
    /// (as the `lifetimes` package does when the direct value overflows) turns them into terms that
    /// fall like n^(c−a−b−1) zⁿ and moves the growth into a closed-form factor.
    public static func logHypergeometric2F1(a: Double, b: Double, c: Double, z: Double) -> Double {
        guard z >= 0, z < 1, a.isFinite, b.isFinite, c.isFinite else { return .nan }
        if z == 0 { return 0 }
        if c - a - b < 0 {
            let transformed = logSeries2F1(a: c - a, b: c - b, c: c, z: z)
            return (c - a - b) * log1p(-z) + transformed
        }
        return logSeries2F1(a: a, b: b, c: c, z: z)
    }

    /// 2F1(a, b; c; z) for 0 <= z < 1: `exp(logHypergeometric2F1)`, so +inf past `Double`'s range.
    public static func hypergeometric2F1(a: Double, b: Double, c: Double, z: Double) -> Double {
        exp(logHypergeometric2F1(a: a, b: b, c: c, z: z))
    }

    /// ln of the plain power series, summed as `sum * exp(logScale)`.
    static func logSeries2F1(a: Double, b: Double, c: Double, z: Double) -> Double {
        var logScale = 0.0
        var sum = 1.0
        var term = 1.0
        var n = 0.0
        var converged = false
        for _ in 0..<hypergeometricMaximumTerms {
            let denominator = (c + n) * (n + 1)
            if denominator == 0 { return .nan }  // c a non-positive integer: undefined
            let ratio = (a + n) * (b + n) / denominator * z
            term *= ratio
            sum += term
            n += 1
            if term == 0 { converged = true; break }  // a or b a non-positive integer: a polynomial
            let rho = max(abs(ratio), z)
            if rho < 1, abs(term) * rho / (1 - rho) <= 1e-16 * abs(sum) { converged = true; break }
            // Keep the numbers in range: rescale both when the sum grows large.
            if abs(sum) > 1e200 || abs(term) > 1e200 {
                let scale = max(abs(sum), abs(term))
                sum /= scale
                term /= scale
                logScale += log(scale)
            }
        }
        guard converged, sum > 0, sum.isFinite else { return .nan }
        return logScale + log(sum)
    }
}

/// Composite Gauss–Legendre quadrature (16 panels of 8 points), for the smooth integrands of the
/// purchase models' safeguards.
enum Quadrature {
    /// The 8-point Gauss–Legendre nodes and weights on [−1, 1].
    static let rule: [(node: Double, weight: Double)] = {
        let n = 8
        var result: [(node: Double, weight: Double)] = []
        for i in 1...n {
            // Newton's iteration on P_n from the Chebyshev guess.
            var x = cos(Double.pi * (Double(i) - 0.25) / (Double(n) + 0.5))
            var derivative = 0.0
            for _ in 0..<100 {
                var p0 = 1.0, p1 = x
                for k in 2...n {
                    let p2 = ((2 * Double(k) - 1) * x * p1 - (Double(k) - 1) * p0) / Double(k)
                    p0 = p1
                    p1 = p2
                }
                derivative = Double(n) * (x * p1 - p0) / (x * x - 1)
                let step = p1 / derivative
                x -= step
                if abs(step) < 1e-15 { break }
            }
            result.append((x, 2 / ((1 - x * x) * derivative * derivative)))
        }
        return result
    }()

    static let panels = 16

    static func gaussLegendre(from a: Double, to b: Double, _ f: (Double) -> Double) -> Double {
        guard b > a else { return 0 }
        let width = (b - a) / Double(panels)
        var total = 0.0
        for panel in 0..<panels {
            let center = a + (Double(panel) + 0.5) * width
            for (node, weight) in rule { total += weight * f(center + 0.5 * width * node) }
        }
        return total * 0.5 * width
    }
}
