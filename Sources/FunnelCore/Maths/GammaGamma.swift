import Foundation

/// A customer's spend history for the Gamma-Gamma model: `x` repeat purchases (x >= 1) and
/// `meanSpend`, the mean value of those repeat purchases (m_x), `weight` customers alike.
public struct SpendHistory: Sendable, Equatable {
    public let x: Int
    public let meanSpend: Double
    public let weight: Double

    public init(x: Int, meanSpend: Double, weight: Double = 1) {
        self.x = x
        self.meanSpend = meanSpend
        self.weight = weight
    }
}

/// The Gamma-Gamma model of spend per transaction (Fader, Hardie & Lee 2005, "RFM and CLV: using
/// iso-value curves for customer base analysis", JMR 42(4); Fader & Hardie 2013, "The Gamma-Gamma
/// model of monetary value").
///
/// A customer's transaction values are Gamma(shape p, rate ν), with ν ~ Gamma(shape q, rate γ)
/// across customers; spend is assumed independent of the purchase process (BG/NBD). Only
/// customers with at least one repeat purchase carry information. `gamma` is γ (`v` in the
/// `lifetimes` package).
public struct GammaGamma: Sendable, Equatable {
    public let p: Double
    public let q: Double
    public let gamma: Double

    public init(p: Double, q: Double, gamma: Double) {
        self.p = p
        self.q = q
        self.gamma = gamma
    }

    /// A fitted model and how the fit went.
    public struct Fit: Sendable, Equatable {
        public let model: GammaGamma
        /// The maximised log-likelihood, summed over all customers (weights included).
        public let logLikelihood: Double
        /// Customers fitted (the sum of the weights).
        public let customers: Double
        /// The minimiser's report (on −log-likelihood per customer, log-scaled parameters).
        public let optimizer: NelderMead.Result
    }

    /// The log density of a customer's mean spend m_x given x (Fader & Hardie 2013, eq. 3):
    /// ln Γ(px+q) − ln Γ(px) − ln Γ(q) + q ln γ + (px−1) ln m_x + px ln x − (px+q) ln(γ + x m_x).
    public func logLikelihood(x: Int, meanSpend m: Double) -> Double {
        let px = p * Double(x)
        return SpecialFunctions.logGamma(px + q) - SpecialFunctions.logGamma(px) - SpecialFunctions.logGamma(q)
            + q * log(gamma) + (px - 1) * log(m) + px * log(Double(x)) - (px + q) * log(gamma + Double(x) * m)
    }

    /// The weighted sum of the customers' log-likelihoods.
    public func logLikelihood(_ data: [SpendHistory]) -> Double {
        data.reduce(0) { $0 + $1.weight * logLikelihood(x: $1.x, meanSpend: $1.meanSpend) }
    }

    /// Maximum-likelihood fit: Nelder–Mead with restarts over (ln p, ln q, ln γ), from `start` (all
    /// 1 when nil) and from a start scaled to the data (p = 1, q = 2, γ = the mean spend, whose
    /// population mean spend is the observed one), keeping the better. Customers with x < 1 or a
    /// non-positive mean spend are left out (no information / outside the model). Returns nil when
    /// none is left.
    public static func fit(_ data: [SpendHistory], start: GammaGamma? = nil,
                           minimiser: NelderMead = NelderMead()) -> Fit? {
        let usable = data.filter { $0.x >= 1 && $0.meanSpend > 0 && $0.meanSpend.isFinite && $0.weight > 0 }
        let customers = usable.reduce(0) { $0 + $1.weight }
        guard customers > 0 else { return nil }
        let objective: ([Double]) -> Double = { theta in
            guard theta.allSatisfy({ abs($0) < 30 }) else { return .infinity }
            let model = GammaGamma(p: exp(theta[0]), q: exp(theta[1]), gamma: exp(theta[2]))
            return -model.logLikelihood(usable) / customers
        }
        let meanSpend = usable.reduce(0) { $0 + $1.weight * $1.meanSpend } / customers
        let starts: [[Double]] = [
            start.map { [log($0.p), log($0.q), log($0.gamma)] } ?? [0, 0, 0],
            [0, log(2), log(meanSpend)],
        ]
        var best: NelderMead.Result?
        for point in starts {
            let result = minimiser.minimize(objective, from: point)
            if best == nil || result.value < best!.value { best = result }
        }
        guard let result = best, result.value.isFinite else { return nil }
        let model = GammaGamma(p: exp(result.point[0]), q: exp(result.point[1]), gamma: exp(result.point[2]))
        return Fit(model: model, logLikelihood: -result.value * customers, customers: customers, optimizer: result)
    }

    /// E[spend per transaction | x, m_x] = p(γ + x m_x) / (px + q − 1): a weighted average of the
    /// population mean pγ/(q − 1) and the customer's own mean m_x, the latter weighing more the more
    /// they bought. With x = 0 it is the population mean (and `meanSpend` is ignored).
    public func conditionalExpectedSpend(x: Int, meanSpend: Double) -> Double {
        let xd = Double(x)
        let own = x > 0 ? xd * meanSpend : 0
        return p * (gamma + own) / (p * xd + q - 1)
    }

    /// The population's mean spend per transaction, pγ/(q − 1); +infinity when q <= 1 (no mean).
    public var meanSpend: Double {
        q > 1 ? p * gamma / (q - 1) : .infinity
    }
}
