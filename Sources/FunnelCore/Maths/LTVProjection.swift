import Foundation

/// The ways funnel projects an LTV curve past the observed days.
public enum LTVMethod: String, Sendable, CaseIterable, Codable {
    /// LTV(d) = a · d^b fitted on the observed curve (`PowerLawFit`).
    case powerLaw = "power law"
    /// Chain-ladder development of the cohort triangle with an additive tail
    /// (`DevelopmentFactorProjection`).
    case developmentFactors = "development factors"
    /// The same development with a linear tail: past the developed days the curve grows by the
    /// mean daily increment of their later half (`DevelopmentFactorProjection.fitLinearTail`).
    case linearTail = "linear tail"
    /// BG/NBD on every install's purchase history (`PurchaseModelProjection`).
    case purchaseModel = "per-user BG/NBD"
    /// The geometric blend of the two methods with the best back-test scores at a horizon, each
    /// weighted by 1 / its score (`LTVBacktest.ensembleWeights`). It is fitted from the back-test,
    /// not from a triangle alone: its own back-test values blend each window's projections with
    /// the weights the other windows give (`LTVBacktest.ensemblePoints`).
    case ensemble = "ensemble"

    /// The methods fitted on a triangle (every one but the ensemble).
    public static let fitted: [LTVMethod] = allCases.filter { $0 != .ensemble }
}

/// Methods' projections blended geometrically: LTV(d) = Π p_m(d)^w_m, the weights summing to 1.
public struct LTVEnsemble: Sendable {
    /// Each method's projection and weight, the heaviest first.
    public let parts: [(projection: LTVProjection, weight: Double)]

    /// Nil with fewer than two parts or weights that are not positive and finite.
    public init?(parts: [(projection: LTVProjection, weight: Double)]) {
        let total = parts.reduce(0) { $0 + $1.weight }
        guard parts.count >= 2, total > 0, total.isFinite, parts.allSatisfy({ $0.weight > 0 }) else { return nil }
        self.parts = parts.map { ($0.projection, $0.weight / total) }
            .sorted { ($0.weight, $0.projection.method.rawValue) > ($1.weight, $1.projection.method.rawValue) }
    }

    /// The blended LTV on a day (each part floored at a millionth of a USD, so a zero cannot void the blend).
    public func predict(day: Int) -> Double {
        exp(parts.reduce(0) { $0 + $1.weight * log(max($1.projection.predict(day: day), 1e-6)) })
    }

    /// Whether the per-user model is one of the parts.
    public var usesPurchaseModel: Bool { parts.contains { $0.projection.method == .purchaseModel } }

    public var modelDescription: String {
        "ensemble (geometric, weights 1 / back-test score): "
            + parts.map { String(format: "%.2f", $0.weight) + " x \($0.projection.method.rawValue) [\($0.projection.modelDescription)]" }
                .joined(separator: " + ")
    }
}

/// One method fitted on one triangle.
public enum LTVProjection: Sendable {
    case powerLaw(PowerLawFit)
    case developmentFactors(DevelopmentFactorProjection)
    case purchaseModel(PurchaseModelProjection)
    case ensemble(LTVEnsemble)

    public var method: LTVMethod {
        switch self {
        case .powerLaw: .powerLaw
        case .developmentFactors(let fit): fit.tail == .linear ? .linearTail : .developmentFactors
        case .purchaseModel: .purchaseModel
        case .ensemble: .ensemble
        }
    }

    /// Projected LTV on a day.
    public func predict(day: Int) -> Double {
        switch self {
        case .powerLaw(let fit): fit.predict(day: day)
        case .developmentFactors(let fit): fit.predict(day: day)
        case .purchaseModel(let fit): fit.predict(day: day)
        case .ensemble(let blend): blend.predict(day: day)
        }
    }

    public var modelDescription: String {
        switch self {
        case .powerLaw(let fit): fit.modelDescription
        case .developmentFactors(let fit): fit.modelDescription
        case .purchaseModel(let fit): fit.modelDescription
        case .ensemble(let blend): blend.modelDescription
        }
    }

    /// Whether the projection reads the per-user model (itself or as a part of the ensemble).
    public var usesPurchaseModel: Bool {
        switch self {
        case .purchaseModel: true
        case .ensemble(let blend): blend.usesPurchaseModel
        default: false
        }
    }

    /// Fits `method` on a triangle; nil when the triangle does not carry enough for it (or the fit
    /// failed, and always for the ensemble, which `LTVBacktest.Outcome.ensemble` makes). For the
    /// per-user model, `pooled` (the app's fit) projects the network when it has fewer than
    /// `LTVBacktest.minimumNetworkBuyers` buyers or `ownFit` is false (the app's own triangle), and
    /// warm-starts the network's own fit otherwise; `spend` (the app's Gamma-Gamma fit) values
    /// each user's future purchase days.
    public static func fit(_ method: LTVMethod, _ triangle: CohortTriangle, pooled: BGNBD.Fit? = nil,
                           ownFit: Bool = true, spend: GammaGamma? = nil) -> LTVProjection? {
        switch method {
        case .powerLaw:
            let curve = triangle.matureCurve()
            return PowerLawFit.fit(days: Array(curve.indices), values: curve, weights: triangle.installsByDay())
                .map(LTVProjection.powerLaw)
        case .developmentFactors:
            return DevelopmentFactorProjection.fit(triangle).map(LTVProjection.developmentFactors)
        case .linearTail:
            return DevelopmentFactorProjection.fitLinearTail(triangle).map(LTVProjection.developmentFactors)
        case .purchaseModel:
            let buyers = triangle.cohorts.reduce(0) { $0 + $1.buyerPurchaseDays.count }
            if let pooled, !ownFit || buyers < LTVBacktest.minimumNetworkBuyers {
                return PurchaseModelProjection(fitted: pooled, triangle: triangle, spend: spend).map(LTVProjection.purchaseModel)
            }
            return PurchaseModelProjection.fit(triangle, start: pooled?.model, spend: spend).map(LTVProjection.purchaseModel)
        case .ensemble:
            return nil
        }
    }
}

/// The back-test that picks an app's projection method per horizon and sizes its intervals.
///
/// It judges the real extrapolation. The app's history spans days 0...L (L: its oldest cohort's
/// last day) and a horizon H is projected from it, a ratio k = H / L. The back-test takes a window
/// of the cohorts installed on ℓ + 1 consecutive calendar days, as they stood at the window's end
/// (the oldest ℓ days old), projects their LTV on day t = round(k · ℓ), and compares it with their
/// LTV on t as later observed (every cohort of the window is mature for t). ℓ is the longest the
/// data allow: the window's youngest cohort must be mature for t, so ℓ (1 + k) <= L − o for a
/// window starting o days after the first install (90 days projected to 365 are judged by 17 days
/// projected to 70). Windows start at o = 0, 7 and 14 (`origins`): up to three values per method
/// and horizon, each with ℓ >= `minimumFromDay`. Each value is counted once: the app's ("all") points choose
/// and size; the networks' points are reported beside them.
///
/// The error of a projection is ln(projected / observed). Per horizon H, a method's score is the
/// mean of |error| / ln(t / ℓ) (its error per unit of log extrapolation) over its app points at H
/// and at the shorter horizons: the shorter extrapolations are evidence on the longer one (on a
/// saturating curve, the 17 → 70-day pairs of a 90-day history alone cannot tell a power law's
/// overshoot at D365). The method with the smallest score is chosen for the app and horizon (a
/// method projecting fewer than half the points of the best-covered one, or none at H, is not
/// considered), except that the ensemble (`LTVMethod.ensemble`: the best two blended, its own
/// points made leaving one window out, `ensemblePoints`) is chosen wherever it has points unless
/// that method beats it by more than a standard error (`clearlyBetter`). Intervals (`halfWidth`): the errors of the method actually
/// used, scaled by the extrapolation, c = rms(error / ln(t / ℓ)) over its app points at every
/// horizon; at H the half-width is q · c · ln(H / L), q the 90% quantile of Student's t with as many
/// degrees of freedom as points (a nominal 80% interval for errors ~ N(0, (c ln k)²) with c
/// estimated), so the interval widens with the extrapolation ratio and is never narrower at a later
/// horizon. Coverage (`coverage`): each of the used method's points against the interval made
/// from its other points (leave one out).
public struct LTVBacktest: Sendable {
    /// One projection compared with what was later observed.
    public struct Point: Sendable, Equatable {
        public let network: String
        public let method: LTVMethod
        public let horizon: Int
        /// The held-out history's last day (its oldest cohort's age, ℓ).
        public let fromDay: Int
        public let targetDay: Int
        /// The window's first install day, in days after the app's first install (o).
        public let originDay: Int
        public let projected: Double
        public let observed: Double

        public init(network: String, method: LTVMethod, horizon: Int, fromDay: Int, targetDay: Int, originDay: Int = 0,
                    projected: Double, observed: Double) {
            self.network = network
            self.method = method
            self.horizon = horizon
            self.fromDay = fromDay
            self.targetDay = targetDay
            self.originDay = originDay
            self.projected = projected
            self.observed = observed
        }

        /// ln(projected / observed).
        public var logError: Double { log(projected / observed) }
        /// projected / observed − 1.
        public var relativeError: Double { projected / observed - 1 }
        /// ln(targetDay / fromDay): the log extrapolation ratio.
        public var logRatio: Double { log(Double(targetDay) / Double(max(fromDay, 1))) }
    }

    /// What the back-test found for one app.
    public struct Outcome: Sendable {
        public let points: [Point]
        /// The score per horizon and method (methods considered): mean |log error| per unit of log
        /// extrapolation ratio over the app's points at the horizon and the shorter ones.
        public let scores: [Int: [LTVMethod: Double]]
        /// The method with the smallest score per horizon.
        public let chosenByHorizon: [Int: LTVMethod]

        public init(points: [Point], scores: [Int: [LTVMethod: Double]], chosenByHorizon: [Int: LTVMethod]) {
            self.points = points
            self.scores = scores
            self.chosenByHorizon = chosenByHorizon
        }

        /// The app's points (network "all"): each back-test value once.
        public var appPoints: [Point] { points.filter { $0.network == "all" } }

        /// The method chosen for the longest back-tested horizon; nil when nothing was back-tested.
        public var chosen: LTVMethod? { chosenByHorizon.max { $0.key < $1.key }?.value }

        /// The method chosen for `horizon`: its own, else the nearest back-tested horizon's.
        public func chosen(horizon: Int) -> LTVMethod? {
            chosenByHorizon.min { (abs($0.key - horizon), $0.key) < (abs($1.key - horizon), $1.key) }?.value
        }

        /// The method chosen at `horizon` (as `chosen(horizon:)`) first, then the others by their
        /// score there, best first, then those not back-tested there.
        public func ranking(horizon: Int) -> [LTVMethod] {
            let key = chosenByHorizon.keys.min { (abs($0 - horizon), $0) < (abs($1 - horizon), $1) }
            let atHorizon = key.flatMap { scores[$0] } ?? [:]
            let first = key.flatMap { chosenByHorizon[$0] }
            return (first.map { [$0] } ?? [])
                + atHorizon.sorted { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }.map(\.key).filter { $0 != first }
                + LTVMethod.allCases.filter { atHorizon[$0] == nil }
        }

        /// The ensemble at `horizon` projected from days 0...`lastDay` (weights as `chosen(horizon:)`):
        /// the two best-scored methods that `fit` can fit, blended. Nil when fewer than two fit, when
        /// the ensemble has no back-test values, or when its parts disagree at the horizon by more
        /// than the full width of its own interval there (|ln(p1 / p2)| > 2 x its half-width): the
        /// extrapolation then goes past what the back-test saw of them (on a saturating curve the
        /// power law, close to the development factors on the short windows, projected D365 twice
        /// as high), and the next method of the ranking projects.
        public func ensemble(horizon: Int, lastDay: Int, fit: (LTVMethod) -> LTVProjection?) -> LTVProjection? {
            guard let width = halfWidth(method: .ensemble, horizon: horizon, lastDay: lastDay) else { return nil }
            let key = chosenByHorizon.keys.min { (abs($0 - horizon), $0) < (abs($1 - horizon), $1) }
            guard let key, let atHorizon = scores[key] else { return nil }
            var fitted: [LTVMethod: LTVProjection] = [:]
            let weights = LTVBacktest.ensembleWeights(atHorizon) { method in
                if fitted[method] == nil, let made = fit(method) { fitted[method] = made }
                return fitted[method] != nil
            }
            guard let blend = LTVEnsemble(parts: weights.map { (fitted[$0.key]!, $0.value) }) else { return nil }
            let values = blend.parts.map { max($0.projection.predict(day: horizon), 1e-6) }
            guard let high = values.max(), let low = values.min(), log(high / low) <= 2 * width else { return nil }
            return .ensemble(blend)
        }

        /// c of `method`: rms of its app errors over their log extrapolation ratios; nil without points.
        public func scale(method: LTVMethod) -> (c: Double, points: Int)? {
            let mine = appPoints.filter { $0.method == method && $0.logRatio > 0 }
            guard !mine.isEmpty else { return nil }
            return (LTVBacktest.rms(mine.map { $0.logError / $0.logRatio }), mine.count)
        }

        /// The log half-width of `method`'s nominal 80% interval at `horizon` projected from days
        /// 0...`lastDay`; nil when the method has no back-test points.
        public func halfWidth(method: LTVMethod, horizon: Int, lastDay: Int) -> Double? {
            guard let (c, n) = scale(method: method) else { return nil }
            return LTVBacktest.studentT90(degrees: n) * c * max(0, log(Double(horizon) / Double(max(lastDay, 1))))
        }

        /// Share of `method`'s app points inside the interval made from its other points (leave one
        /// out), with the number checked; nil with fewer than 2 points.
        public func coverage(method: LTVMethod) -> (share: Double, points: Int)? {
            let mine = appPoints.filter { $0.method == method && $0.logRatio > 0 }
            guard mine.count >= 2 else { return nil }
            var covered = 0
            for (index, point) in mine.enumerated() {
                var others = mine
                others.remove(at: index)
                let c = LTVBacktest.rms(others.map { $0.logError / $0.logRatio })
                if abs(point.logError) <= LTVBacktest.studentT90(degrees: others.count) * c * point.logRatio { covered += 1 }
            }
            return (Double(covered) / Double(mine.count), mine.count)
        }
    }

    /// Buyers a network needs for its own per-user fit (else the app's pooled fit).
    public static let minimumNetworkBuyers = 300
    /// The shortest held-out history back-tested (ℓ): a window of under two weeks holds too little
    /// of the repeat purchases to judge an extrapolation (on generated saturating curves, 7- to
    /// 10-day windows chose a linear tail that projected D180 from 47 days 70% high). Compute
    /// projects a horizon the history is too short to back-test with the power law and its own
    /// interval.
    public static let minimumFromDay = 14
    /// The windows' first install days (o).
    public static let origins = [0, 7, 14]
    /// Share of day 0's installs the target day must keep (the floor of projections).
    public static let targetSupport = 0.3

    /// The 90% quantile of Student's t with `degrees` degrees of freedom (1.2816 from 30 on).
    public static func studentT90(degrees: Int) -> Double {
        let table = [3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372, 1.363, 1.356, 1.350, 1.345,
                     1.341, 1.337, 1.333, 1.330, 1.328, 1.325]
        if degrees >= 1 && degrees <= table.count { return table[degrees - 1] }
        return degrees > table.count ? (degrees >= 30 ? 1.2816 : 1.31) : .infinity
    }

    /// Back-tests every method on an app's triangles (keyed by network; "all" is the app's; all
    /// end on the same calendar day). `start` warm-starts the per-user fits.
    public static func run(networks: [String: CohortTriangle], horizons: [Int],
                           methods: [LTVMethod] = LTVMethod.allCases, start: BGNBD? = nil) -> Outcome {
        guard let all = networks["all"], all.lastDay > 0 else { return outcome(points: [], methods: methods) }
        let lastDay = all.lastDay
        let oldestAge = all.oldestAge
        var points: [Point] = []
        for horizon in horizons where horizon > lastDay {
            let ratio = Double(horizon) / Double(lastDay)
            for origin in origins {
                let fromDay = Int((Double(lastDay - origin) / (1 + ratio)).rounded(.down))
                let targetDay = Int((ratio * Double(fromDay)).rounded())
                guard fromDay >= minimumFromDay, origin + fromDay + targetDay <= lastDay else { continue }
                points += backtest(networks: networks, oldestAge: oldestAge, origin: origin, fromDay: fromDay,
                                   targetDay: targetDay, horizon: horizon, methods: methods, start: start)
            }
        }
        return outcome(points: points, methods: methods)
    }

    /// Every method's projection of `targetDay` for the cohorts installed on days origin...origin +
    /// fromDay (of an app whose oldest cohort is `oldestAge` days old), from those cohorts as they
    /// stood fromDay days after the window opened. The per-user model is fitted once, on the app's
    /// window, and projects every network from it.
    public static func backtest(networks: [String: CohortTriangle], oldestAge: Int, origin: Int, fromDay: Int, targetDay: Int,
                                horizon: Int, methods: [LTVMethod], start: BGNBD? = nil) -> [Point] {
        let windows = networks.mapValues { $0.window(oldestAge: oldestAge, firstInstallDay: origin, days: fromDay + 1) }
        var pooledFit: BGNBD.Fit?
        var pooledSpend: GammaGamma?
        if methods.contains(.purchaseModel), let pooled = windows["all"]?.history {
            pooledFit = PurchaseModelProjection.fitHistories(PurchaseModelProjection.histories(pooled), start: start,
                                                             refit: start != nil)
            pooledSpend = PurchaseModelProjection.fitSpend(pooled)
        }
        var points: [Point] = []
        for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
            guard let window = windows[network], window.history.installs > 0,
                  let observed = window.observed(day: targetDay), observed > 0 else { continue }
            for method in methods where method != .ensemble {
                let projection: LTVProjection?
                if method == .purchaseModel {
                    projection = pooledFit.flatMap { PurchaseModelProjection(fitted: $0, triangle: window.history, spend: pooledSpend) }
                        .map(LTVProjection.purchaseModel)
                } else {
                    projection = LTVProjection.fit(method, window.history)
                }
                guard let projection else { continue }
                let value = projection.predict(day: targetDay)
                guard value > 0, value.isFinite else { continue }
                points.append(Point(network: network, method: method, horizon: horizon, fromDay: fromDay,
                                    targetDay: targetDay, originDay: origin, projected: value, observed: observed))
            }
        }
        return points
    }

    /// The choice per horizon from back-test points (made now or kept from a run before). Ensemble
    /// points passed in are dropped and made again from the methods' points (`ensemblePoints`)
    /// when `methods` holds the ensemble.
    public static func outcome(points: [Point], methods: [LTVMethod] = LTVMethod.allCases) -> Outcome {
        let base = points.filter { $0.method != .ensemble }
        let all = methods.contains(.ensemble) ? base + ensemblePoints(base, methods: methods.filter { $0 != .ensemble }) : base
        let (scores, chosen) = score(all, methods: methods)
        return Outcome(points: all, scores: scores, chosenByHorizon: chosen)
    }

    /// Per horizon H, each method's score over the app's points at H and shorter horizons (a method
    /// with fewer than half the points of the best-covered one, or none at H, not scored), and the
    /// best-scored method.
    static func score(_ points: [Point], methods: [LTVMethod]) -> ([Int: [LTVMethod: Double]], [Int: LTVMethod]) {
        var scores: [Int: [LTVMethod: Double]] = [:]
        var chosen: [Int: LTVMethod] = [:]
        let app = points.filter { $0.network == "all" && $0.logRatio > 0 }
        for horizon in Set(app.map(\.horizon)) {
            let upTo = app.filter { $0.horizon <= horizon }
            let counts = Dictionary(grouping: upTo, by: \.method).mapValues(\.count)
            let most = counts.values.max() ?? 0
            var byMethod: [LTVMethod: Double] = [:]
            for method in methods {
                let mine = upTo.filter { $0.method == method }
                guard !mine.isEmpty, 2 * mine.count >= most, mine.contains(where: { $0.horizon == horizon }) else { continue }
                byMethod[method] = mine.reduce(0) { $0 + abs($1.logError) / $1.logRatio } / Double(mine.count)
            }
            scores[horizon] = byMethod
            let best = byMethod.min { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }?.key
            if let best, best != .ensemble, byMethod[.ensemble] != nil,
               !clearlyBetter(best, than: .ensemble, points: upTo) {
                chosen[horizon] = .ensemble
            } else {
                chosen[horizon] = best
            }
        }
        return (scores, chosen)
    }

    /// Whether `method` back-tests better than `other` by more than the noise of a few windows
    /// tells: over the windows both project (the points given), the mean of the paired differences
    /// of |error| / ln(t / l) lies more than one standard error below zero. The ensemble is chosen
    /// unless a method beats it so: with three windows a horizon, a lower score alone is mostly
    /// the luck of the windows (on CDNOW cut at 90 days, the per-user model scored best at D365 on
    /// its windows and projected 14% high, the blend 8%).
    static func clearlyBetter(_ method: LTVMethod, than other: LTVMethod, points: [Point]) -> Bool {
        struct Window: Hashable { let horizon: Int; let origin: Int; let target: Int }
        var mine: [Window: Double] = [:], theirs: [Window: Double] = [:]
        for point in points where point.method == method || point.method == other {
            let window = Window(horizon: point.horizon, origin: point.originDay, target: point.targetDay)
            let value = abs(point.logError) / point.logRatio
            if point.method == method { mine[window] = value } else { theirs[window] = value }
        }
        let differences = mine.compactMap { window, value in theirs[window].map { value - $0 } }
        guard differences.count >= 2 else { return true }
        let n = Double(differences.count)
        let mean = differences.reduce(0, +) / n
        let variance = differences.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / (n - 1)
        return mean < -(variance / n).squareRoot()
    }

    /// The ensemble's weights from one horizon's scores: the two best-scored methods `usable`
    /// admits (asked in score order, only until two are found; the ensemble itself never), each 1 / its score (a score under 0.001 counted as
    /// 0.001), summing to 1; empty with fewer than two.
    public static func ensembleWeights(_ scores: [LTVMethod: Double], usable: (LTVMethod) -> Bool = { _ in true })
        -> [LTVMethod: Double] {
        // In score order, asking `usable` only until two are found (it may fit the method).
        var best: [(key: LTVMethod, value: Double)] = []
        for entry in scores.filter({ $0.key != .ensemble }).sorted(by: { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) })
        where best.count < ensembleSize && usable(entry.key) {
            best.append(entry)
        }
        guard best.count == ensembleSize else { return [:] }
        let raw = best.map { ($0.key, 1 / max($0.value, 0.001)) }
        let total = raw.reduce(0) { $0 + $1.1 }
        return Dictionary(uniqueKeysWithValues: raw.map { ($0.0, $0.1 / total) })
    }

    /// How many methods the ensemble blends.
    public static let ensembleSize = 2

    /// The ensemble's back-test values: for each window of the app's points (a horizon and an
    /// origin), that window's projections blended with the weights the app's points of the
    /// other windows give (leave one window out), against the same observed value. A window
    /// without other windows at its horizon, or without two of the weighted methods, gives none.
    static func ensemblePoints(_ points: [Point], methods: [LTVMethod]) -> [Point] {
        let app = points.filter { $0.network == "all" && $0.logRatio > 0 }
        struct Window: Hashable { let horizon: Int; let origin: Int; let target: Int }
        let windows = Set(app.map { Window(horizon: $0.horizon, origin: $0.originDay, target: $0.targetDay) })
            .sorted { ($0.horizon, $0.origin, $0.target) < ($1.horizon, $1.origin, $1.target) }
        var result: [Point] = []
        for window in windows {
            let inWindow: (Point) -> Bool = {
                $0.horizon == window.horizon && $0.originDay == window.origin && $0.targetDay == window.target
            }
            let mine = app.filter(inWindow)
            let (scores, _) = score(app.filter { !inWindow($0) }, methods: methods)
            guard let atHorizon = scores[window.horizon], let first = mine.first else { continue }
            let weights = ensembleWeights(atHorizon) { method in mine.contains { $0.method == method } }
            guard !weights.isEmpty else { continue }
            let logValue = mine.filter { weights[$0.method] != nil }.reduce(0) { $0 + weights[$1.method]! * log($1.projected) }
            result.append(Point(network: "all", method: .ensemble, horizon: window.horizon, fromDay: first.fromDay,
                                targetDay: window.target, originDay: window.origin, projected: exp(logValue),
                                observed: first.observed))
        }
        return result
    }

    static func rms(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }
}
