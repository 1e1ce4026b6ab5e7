import Foundation

/// One customer's purchase history in the form the "buy till you die" models need (the sufficient
/// statistics of BG/NBD, in the paper's notation): the clock starts at the first purchase, which
/// itself is not counted.
///
/// - `x`: repeat purchases (purchases after the first; several on one day usually count once),
/// - `tx`: recency, the time of the last purchase (0 when x = 0),
/// - `T`: age, the time from the first purchase to the end of observation.
///
/// Times are in any unit (weeks in the literature); predictions come in the same unit.
public struct PurchaseHistory: Sendable, Hashable {
    public let x: Int
    public let tx: Double
    public let T: Double

    public init(x: Int, tx: Double, T: Double) {
        precondition(x >= 0, "a purchase count cannot be negative")
        self.x = x
        self.tx = tx
        self.T = T
    }

    /// The history of a customer who bought at `purchaseTimes` (any order), observed until `end`:
    /// purchases after `end` are ignored and equal times count once — pass whole days (in the
    /// model's unit, e.g. days / 7 for weeks) so several purchases on one day are one, as in the
    /// papers. Nil when nothing was bought by `end`.
    public init?(purchaseTimes: [Double], observedUntil end: Double) {
        let times = Set(purchaseTimes.filter { $0 <= end }).sorted()
        guard let first = times.first, let last = times.last else { return nil }
        self.init(x: times.count - 1, tx: last - first, T: end - first)
    }

    /// Identical histories counted once, with their count as the weight; the fit's cost follows the
    /// rows. With times kept to whole days (weeks as the unit), a million simulated customers over
    /// a year made about 80,000 rows. Do not round coarser to get fewer rows: recency rounded up to
    /// whole weeks biased the fitted α by about +12% in the same simulation. Sorted by (x, tx, T),
    /// so fits are reproducible.
    public static func grouped(_ histories: some Sequence<PurchaseHistory>) -> [WeightedPurchaseHistory] {
        var counts: [PurchaseHistory: Double] = [:]
        for history in histories { counts[history, default: 0] += 1 }
        return counts.map { WeightedPurchaseHistory(history: $0.key, weight: $0.value) }
            .sorted { ($0.history.x, $0.history.tx, $0.history.T) < ($1.history.x, $1.history.tx, $1.history.T) }
    }
}

/// A purchase history standing for `weight` identical customers.
public struct WeightedPurchaseHistory: Sendable, Equatable {
    public let history: PurchaseHistory
    public let weight: Double

    public init(history: PurchaseHistory, weight: Double = 1) {
        self.history = history
        self.weight = weight
    }
}

/// The BG/NBD model of repeat purchases (Fader, Hardie & Lee 2005, "Counting your customers the
/// easy way: an alternative to the Pareto/NBD model", Marketing Science 24(2)).
///
/// While alive a customer buys as a Poisson process of rate λ ~ Gamma(shape r, rate α); after each
/// purchase they drop out for good with probability p ~ Beta(a, b). Parameters are fitted by
/// maximum likelihood on the customers' (x, tx, T).
///
/// The expectations' closed form has a leading factor (a + b + x − 1)/(a − 1): fits on real data
/// have a < 1 now and then, where it still holds (both factors are negative), but near a = 1 and
/// on short histories it cancels to nonsense; `expectedPurchases` then integrates numerically.
public struct BGNBD: Sendable, Equatable {
    public let r: Double
    public let alpha: Double
    public let a: Double
    public let b: Double

    public init(r: Double, alpha: Double, a: Double, b: Double) {
        self.r = r
        self.alpha = alpha
        self.a = a
        self.b = b
    }

    /// A fitted model and how the fit went.
    public struct Fit: Sendable, Equatable {
        public let model: BGNBD
        /// The maximised log-likelihood, summed over all customers (weights included).
        public let logLikelihood: Double
        /// Customers fitted (the sum of the weights).
        public let customers: Double
        /// The minimiser's report (on −log-likelihood per customer, log-scaled parameters).
        public let optimizer: NelderMead.Result
    }

    // MARK: Likelihood

    /// One customer's log-likelihood (section 7 of the paper / Hardie's note 004), in log space:
    ///
    ///     L = B(a, b+x)/B(a, b) · Γ(r+x) α^r / (Γ(r) (α+T)^(r+x))
    ///       + [x > 0] · B(a+1, b+x−1)/B(a, b) · Γ(r+x) α^r / (Γ(r) (α+tx)^(r+x))
    ///
    /// with the common factor taken out and the two terms added by log-sum-exp.
    public func logLikelihood(x: Int, tx: Double, T: Double) -> Double {
        let xd = Double(x)
        let common = SpecialFunctions.logGamma(r + xd) - SpecialFunctions.logGamma(r) + r * log(alpha)
            + SpecialFunctions.logBeta(a, b + xd) - SpecialFunctions.logBeta(a, b)
        let alive = -(r + xd) * log(alpha + T)
        guard x > 0 else { return common + alive }
        let droppedOut = log(a) - log(b + xd - 1) - (r + xd) * log(alpha + tx)
        return common + SpecialFunctions.logSumExp(alive, droppedOut)
    }

    /// The weighted sum of the customers' log-likelihoods.
    public func logLikelihood(_ data: [WeightedPurchaseHistory]) -> Double {
        Self.totalLogLikelihood(r: r, alpha: alpha, a: a, b: b, data: data, cache: XTerms(maxX: data.map(\.history.x).max() ?? 0))
    }

    /// Terms that depend on x only, computed once per distinct x and evaluation (by recurrence:
    /// ln Γ(r+x) − ln Γ(r) = Σ ln(r+k)), so a fit costs a few logs per row.
    private struct XTerms {
        var byX: [Double]
        var logDropOut: [Double]
        init(maxX: Int) {
            byX = [Double](repeating: 0, count: maxX + 1)
            logDropOut = [Double](repeating: 0, count: maxX + 1)
        }
    }

    private static func totalLogLikelihood(r: Double, alpha: Double, a: Double, b: Double,
                                           data: [WeightedPurchaseHistory], cache: XTerms) -> Double {
        var cache = cache
        let maxX = cache.byX.count - 1
        // x-only part: ln Γ(r+x) − ln Γ(r) + ln B(a, b+x) − ln B(a, b), by recurrences
        // Γ(r+x+1) = (r+x) Γ(r+x) and B(a, b+x+1) = B(a, b+x) (b+x)/(a+b+x).
        var gammaPart = 0.0
        var betaPart = 0.0
        for x in 0...maxX {
            if x > 0 {
                let previous = Double(x - 1)
                gammaPart += log(r + previous)
                betaPart += log(b + previous) - log(a + b + previous)
            }
            cache.byX[x] = gammaPart + betaPart
            cache.logDropOut[x] = x > 0 ? log(a) - log(b + Double(x) - 1) : -.infinity
        }
        let rLogAlpha = r * log(alpha)
        var total = 0.0
        for row in data {
            let h = row.history
            let rx = r + Double(h.x)
            let alive = -rx * log(alpha + h.T)
            var ll = rLogAlpha + cache.byX[h.x]
            if h.x > 0 {
                ll += SpecialFunctions.logSumExp(alive, cache.logDropOut[h.x] - rx * log(alpha + h.tx))
            } else {
                ll += alive
            }
            total += row.weight * ll
        }
        return total
    }

    // MARK: Fitting

    /// The bounds of (ln r, ln α, ln a, ln b) in a fit: r, a and b in [1e-4, 1e4], α in [1e-4, 1e7]
    /// (α is in the unit of time: 1e7 days is a rate of purchase far below any app's).
    public static let logBounds: [ClosedRange<Double>] = [log(1e-4)...log(1e4), log(1e-4)...log(1e7),
                                                          log(1e-4)...log(1e4), log(1e-4)...log(1e4)]

    /// Maximum-likelihood fit on (grouped) histories: Nelder–Mead with restarts on the −log-likelihood
    /// per customer, over (ln r, ln α, ln a, ln b) within `logBounds` — so the parameters stay
    /// positive and bounded. Starts from
    /// `start` (all 1 when nil) and also from a start scaled to the data (α at the mean age), and
    /// keeps the better. Rows with T <= 0 (customers first seen at the end of observation, no
    /// information) or weight <= 0 are left out. Returns nil without data or when no finite
    /// likelihood was found (a failed fit, not to be used). With `onlyFromStart` (and a `start`), only the given start is tried:
    /// a refit close to a known fit (the same customers seen a few weeks earlier).
    public static func fit(_ data: [WeightedPurchaseHistory], start: BGNBD? = nil,
                           minimiser: NelderMead = NelderMead(), onlyFromStart: Bool = false) -> Fit? {
        let usable = data.filter { $0.weight > 0 && $0.history.x >= 0 && $0.history.T > 0 }
        let customers = usable.reduce(0) { $0 + $1.weight }
        guard customers > 0 else { return nil }
        let cache = XTerms(maxX: usable.map(\.history.x).max() ?? 0)
        let objective: ([Double]) -> Double = { theta in
            // Bounded parameters: past the bounds a fit has run off to a degenerate model (and exp
            // of very large log-parameters overflows).
            guard zip(theta, logBounds).allSatisfy({ $1.contains($0) }) else { return .infinity }
            let p = theta.map { exp($0) }
            return -totalLogLikelihood(r: p[0], alpha: p[1], a: p[2], b: p[3], data: usable, cache: cache) / customers
        }
        let meanAge = usable.reduce(0) { $0 + $1.weight * $1.history.T } / customers
        var starts: [[Double]] = [[0, log(min(max(meanAge, 1e-3), 1e6)), 0, 0]]
        if let start {
            starts.insert([log(start.r), log(start.alpha), log(start.a), log(start.b)], at: 0)
            if onlyFromStart { starts.removeLast() }
        } else {
            starts.insert([0, 0, 0, 0], at: 0)
        }
        var best: NelderMead.Result?
        for point in starts {
            let result = minimiser.minimize(objective, from: point)
            if best == nil || result.value < best!.value { best = result }
        }
        guard let best, best.value.isFinite else { return nil }
        let p = best.point.map { exp($0) }
        // A fit whose own predictions are not finite and non-negative is not used.
        let model = BGNBD(r: p[0], alpha: p[1], a: p[2], b: p[3])
        let check = model.expectedPurchases(t: 10 * meanAge + 1, x: 0, tx: 0, T: meanAge)
        guard check.isFinite, check >= 0 else { return nil }
        return Fit(model: BGNBD(r: p[0], alpha: p[1], a: p[2], b: p[3]), logLikelihood: -best.value * customers,
                   customers: customers, optimizer: best)
    }

    // MARK: Predictions

    /// Expected repeat purchases in (0, t] of a new customer (eq. 9 of the paper):
    /// (a+b−1)/(a−1) · [1 − (α/(α+t))^r · 2F1(r, b; a+b−1; t/(α+t))]; eq. 10 at x = 0, T = 0, with
    /// its safeguards.
    public func expectedPurchases(t: Double) -> Double {
        expectedPurchases(t: t, x: 0, tx: 0, T: 0)
    }

    /// Expected purchases in the next t periods of a customer with history (x, tx, T)
    /// (eq. 10 of the paper):
    ///
    ///     (a+b+x−1)/(a−1) · [1 − ((α+T)/(α+T+t))^(r+x) · 2F1(r+x, b+x; a+b+x−1; t/(α+T+t))]
    ///     / (1 + [x > 0] · a/(b+x−1) · ((α+T)/(α+tx))^(r+x))
    ///
    /// The 2F1 and both powers are taken in log space (see `SpecialFunctions.logHypergeometric2F1`).
    /// The closed form loses everything to cancellation near a = 1 and when the 2F1 series cannot
    /// be summed (z = t/(α+T+t) near 1: short histories, long horizons); fits on short app
    /// histories gave expectations of −1e112 there. So the closed form is only kept when it lies
    /// within [0, P(alive) · t · (r+x)/(α+T)] (a customer alive at T buys at a posterior mean rate
    /// (r+x)/(α+T) until they drop out, so no more than that on average); otherwise the same
    /// expectation is integrated numerically (`aliveExpectationByQuadrature`). The result is
    /// always finite and non-negative for positive parameters.
    public func expectedPurchases(t: Double, x: Int, tx: Double, T: Double) -> Double {
        guard t > 0 else { return 0 }
        let xd = Double(x)
        let alive = probabilityAlive(x: x, tx: tx, T: T)
        let bound = alive * t * (r + xd) / (alpha + T)
        let z = t / (alpha + T + t)
        let logHyp = SpecialFunctions.logHypergeometric2F1(a: r + xd, b: b + xd, c: a + b + xd - 1, z: z)
        let logTerm = logHyp + (r + xd) * log((alpha + T) / (alpha + T + t))
        let closedForm = (a + b + xd - 1) / (a - 1) * -expm1(logTerm) * alive
        if closedForm.isFinite, closedForm >= 0, closedForm <= bound * (1 + 1e-9), abs(a - 1) > 1e-6 {
            return closedForm
        }
        let integrated = alive * Self.aliveExpectationByQuadrature(t: t, shape: r + xd, rate: alpha + T, a: a, b: b + xd)
        return integrated.isFinite ? min(max(integrated, 0), bound) : bound
    }

    /// E[purchases in the next t | alive] for a customer whose rate is Gamma(shape, rate) and whose
    /// drop-out probability is Beta(a, b) (the posteriors given x and T: shape r+x, rate α+T, b+x).
    /// Given λ and p a living customer buys (1 − e^(−λpt))/p in expectation; over λ that is
    /// g(p) = (1 − (1 + pt/rate)^(−shape))/p, bounded by shape·t/rate, and the Beta integral of g is
    /// taken by Gauss–Legendre on each half of (0, 1), substituting p = u^(1/a) on the first and
    /// 1 − p = v^(1/b) on the second so that the Beta density's end points are smooth.
    public static func aliveExpectationByQuadrature(t: Double, shape: Double, rate: Double, a: Double, b: Double) -> Double {
        func g(_ p: Double) -> Double {
            guard p > 0 else { return shape * t / rate }
            return -expm1(-shape * log1p(p * t / rate)) / p
        }
        let logNorm = SpecialFunctions.logBeta(a, b)
        // ∫_0^½ g(p) p^(a−1) (1−p)^(b−1) dp = (1/a) ∫_0^(½^a) g(u^(1/a)) (1 − u^(1/a))^(b−1) du.
        let lowEnd = pow(0.5, a)
        let low = Quadrature.gaussLegendre(from: 0, to: lowEnd) { u in
            let p = pow(u, 1 / a)
            return g(p) * exp((b - 1) * log1p(-p))
        } / a
        // ∫_½^1 … dp = (1/b) ∫_0^(½^b) g(1 − v^(1/b)) (1 − v^(1/b))^(a−1) dv.
        let highEnd = pow(0.5, b)
        let high = highEnd > 0 ? Quadrature.gaussLegendre(from: 0, to: highEnd) { v in
            let q = pow(v, 1 / b)
            return g(1 - q) * exp((a - 1) * log1p(-q))
        } / b : 0
        return (low + high) * exp(-logNorm)
    }

    /// The probability that a customer with history (x, tx, T) has not dropped out
    /// (Hardie's note 021): 1 / (1 + [x > 0] · a/(b+x−1) · ((α+T)/(α+tx))^(r+x)).
    /// Exactly 1 when x = 0: in BG/NBD a customer can only drop out right after a purchase, and the
    /// first purchase does not count, so a customer who never bought again has had no chance to.
    public func probabilityAlive(x: Int, tx: Double, T: Double) -> Double {
        guard x > 0 else { return 1 }
        let xd = Double(x)
        let logOdds = log(a) - log(b + xd - 1) + (r + xd) * log((alpha + T) / (alpha + tx))
        // 1 / (1 + e^logOdds), without overflow.
        return logOdds > 0 ? exp(-logOdds) / (1 + exp(-logOdds)) : 1 / (1 + exp(logOdds))
    }
}
