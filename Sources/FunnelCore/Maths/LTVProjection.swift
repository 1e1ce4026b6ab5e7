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
}

/// One method fitted on one triangle.
public enum LTVProjection: Sendable {
    case powerLaw(PowerLawFit)
    case developmentFactors(DevelopmentFactorProjection)
    case purchaseModel(PurchaseModelProjection)

    public var method: LTVMethod {
        switch self {
        case .powerLaw: .powerLaw
        case .developmentFactors(let fit): fit.tail == .linear ? .linearTail : .developmentFactors
        case .purchaseModel: .purchaseModel
        }
    }

    /// Projected LTV on a day.
    public func predict(day: Int) -> Double {
        switch self {
        case .powerLaw(let fit): fit.predict(day: day)
        case .developmentFactors(let fit): fit.predict(day: day)
        case .purchaseModel(let fit): fit.predict(day: day)
        }
    }

    public var modelDescription: String {
        switch self {
        case .powerLaw(let fit): fit.modelDescription
        case .developmentFactors(let fit): fit.modelDescription
        case .purchaseModel(let fit): fit.modelDescription
        }
    }

    /// Fits `method` on a triangle; nil when the triangle does not carry enough for it. For the
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
        }
    }
}

/// The back-test that picks an app's projection method and sizes its intervals.
///
/// The triangle's most recent calendar days are held out: the history as it stood `L − s` days
/// earlier is projected to a target day t that the full history observes, and the projection is
/// compared with the observed LTV on t (the cohorts mature for t). Each horizon H past the observed
/// days is back-tested at its own extrapolation ratio: t is the last day backed by 30% of the
/// installs (and one and two weeks before it: three origins), and s = t · L / H, so the held-out
/// history is to t what the full history is to H. Origins with s < 7 days are skipped.
///
/// The error of a projection is ln(projected / observed). A method's score is the mean absolute
/// error over every network, horizon and origin it could project; the method with the smallest
/// score is chosen for the app (a method projecting fewer than half the points of the best-covered
/// one is not considered). The interval at H is the projection times exp(±z·σ_H), σ_H the root
/// mean square of the chosen method's errors at H (the largest σ of the tested horizons when H has
/// none) and z = 1.2816 (a nominal 80% interval). Coverage: each back-test error of the chosen
/// method is checked against the interval made from the other errors at its horizon (leave one
/// out), and the share covered is reported; it should be near 80%.
public struct LTVBacktest: Sendable {
    /// One projection compared with what was later observed.
    public struct Point: Sendable, Equatable {
        public let network: String
        public let method: LTVMethod
        public let horizon: Int
        /// The held-out history's last day (its oldest cohort's age).
        public let fromDay: Int
        public let targetDay: Int
        public let projected: Double
        public let observed: Double

        public init(network: String, method: LTVMethod, horizon: Int, fromDay: Int, targetDay: Int, projected: Double,
                    observed: Double) {
            self.network = network
            self.method = method
            self.horizon = horizon
            self.fromDay = fromDay
            self.targetDay = targetDay
            self.projected = projected
            self.observed = observed
        }

        /// ln(projected / observed).
        public var logError: Double { log(projected / observed) }
        /// projected / observed − 1.
        public var relativeError: Double { projected / observed - 1 }
    }

    /// What the back-test found for one app.
    public struct Outcome: Sendable {
        public let points: [Point]
        /// Mean absolute log error per method (only methods considered).
        public let scores: [LTVMethod: Double]
        /// The method with the smallest score; nil when nothing could be back-tested.
        public let chosen: LTVMethod?
        /// σ of the chosen method's errors per back-tested horizon.
        public let sigma: [Int: Double]
        /// Share of the chosen method's held-out values inside their leave-one-out interval.
        public let coverage: Double?
        /// Points the coverage was checked on.
        public let coveragePoints: Int

        /// Methods ordered by score (best first), then those not back-tested.
        public var ranking: [LTVMethod] {
            scores.sorted { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }.map(\.key)
                + LTVMethod.allCases.filter { scores[$0] == nil }
        }

        /// The log half-width of the interval at a horizon.
        public func halfWidth(horizon: Int) -> Double? {
            if let value = sigma[horizon] { return LTVBacktest.z * value }
            return sigma.values.max().map { LTVBacktest.z * $0 }
        }
    }

    /// z of the stated interval (nominal 80%, two-sided).
    public static let z = 1.2816
    /// Buyers a network needs for its own per-user fit (else the app's pooled fit).
    public static let minimumNetworkBuyers = 300
    /// The shortest held-out history back-tested.
    public static let minimumFromDay = 7
    /// Origins per horizon (targets a week apart).
    public static let origins = 3
    /// Share of day 0's installs the target day must keep.
    public static let targetSupport = 0.3

    /// Back-tests every method on an app's triangles (keyed by network; "all" is the app's).
    /// `start` warm-starts the per-user fits (the fit on the whole history is close to theirs).
    public static func run(networks: [String: CohortTriangle], horizons: [Int],
                           methods: [LTVMethod] = LTVMethod.allCases, start: BGNBD? = nil) -> Outcome {
        guard let all = networks["all"] else { return outcome(points: [], methods: methods) }
        let lastDay = all.lastDay
        let target = all.lastDay(backedBy: targetSupport)
        let projectedFrom = all.lastDay(backedBy: DevelopmentFactorProjection.minimumSupport)
        var points: [Point] = []
        for horizon in horizons where horizon > projectedFrom && lastDay > 0 {
            for origin in 0..<origins {
                let targetDay = target - 7 * origin
                let fromDay = Int((Double(targetDay) * Double(lastDay) / Double(horizon)).rounded())
                guard fromDay >= minimumFromDay, targetDay > fromDay else { continue }
                points += backtest(networks: networks, holdout: lastDay - fromDay, fromDay: fromDay,
                                   targetDay: targetDay, horizon: horizon, methods: methods, start: start)
            }
        }
        return outcome(points: points, methods: methods)
    }

    /// Every method's projection of `targetDay` from the history `holdout` days shorter. The
    /// per-user model is fitted once, on the app's histories, and projects every network from
    /// them (a fit per network and origin would cost more than the rest of a daily run).
    public static func backtest(networks: [String: CohortTriangle], holdout: Int, fromDay: Int, targetDay: Int,
                                horizon: Int, methods: [LTVMethod], start: BGNBD? = nil) -> [Point] {
        let held = networks.mapValues { $0.holdingOut(days: holdout) }
        let pooled = held["all"].map(PurchaseModelProjection.histories)
        var pooledFit: BGNBD.Fit?
        var pooledSpend: GammaGamma?
        if methods.contains(.purchaseModel), let pooled {
            pooledFit = PurchaseModelProjection.fitHistories(pooled, start: start, refit: start != nil)
            pooledSpend = held["all"].flatMap { PurchaseModelProjection.fitSpend($0) }
        }
        var points: [Point] = []
        for network in networks.keys.sorted(by: { ($0 == "all" ? 0 : 1, $0) < ($1 == "all" ? 0 : 1, $1) }) {
            let full = networks[network]!
            let observedCurve = full.matureCurve()
            guard targetDay < observedCurve.count, full.installsByDay()[targetDay] > 0,
                  observedCurve[targetDay] > 0, let history = held[network], history.lastDay >= 0
            else { continue }
            for method in methods {
                let projection: LTVProjection?
                if method == .purchaseModel {
                    projection = pooledFit.flatMap { PurchaseModelProjection(fitted: $0, triangle: history, spend: pooledSpend) }
                        .map(LTVProjection.purchaseModel)
                } else {
                    projection = LTVProjection.fit(method, history)
                }
                guard let projection else { continue }
                let value = projection.predict(day: targetDay)
                guard value > 0, value.isFinite else { continue }
                points.append(Point(network: network, method: method, horizon: horizon, fromDay: fromDay,
                                    targetDay: targetDay, projected: value, observed: observedCurve[targetDay]))
            }
        }
        return points
    }

    /// The choice, intervals and coverage from back-test points (made now or kept from a run before).
    public static func outcome(points: [Point], methods: [LTVMethod] = LTVMethod.allCases) -> Outcome {
        let counts = Dictionary(grouping: points, by: \.method).mapValues(\.count)
        let most = counts.values.max() ?? 0
        var scores: [LTVMethod: Double] = [:]
        for method in methods {
            let mine = points.filter { $0.method == method }
            guard !mine.isEmpty, 2 * mine.count >= most else { continue }
            scores[method] = mine.reduce(0) { $0 + abs($1.logError) } / Double(mine.count)
        }
        let chosen = scores.min { ($0.value, $0.key.rawValue) < ($1.value, $1.key.rawValue) }?.key
        var sigma: [Int: Double] = [:]
        var covered = 0
        var checked = 0
        if let chosen {
            let mine = points.filter { $0.method == chosen }
            for (horizon, atHorizon) in Dictionary(grouping: mine, by: \.horizon) {
                sigma[horizon] = rms(atHorizon.map(\.logError))
                guard atHorizon.count >= 3 else { continue }
                for (index, point) in atHorizon.enumerated() {
                    var others = atHorizon.map(\.logError)
                    others.remove(at: index)
                    checked += 1
                    if abs(point.logError) <= z * rms(others) { covered += 1 }
                }
            }
        }
        return Outcome(points: points, scores: scores, chosen: chosen, sigma: sigma,
                       coverage: checked > 0 ? Double(covered) / Double(checked) : nil, coveragePoints: checked)
    }

    static func rms(_ values: [Double]) -> Double {
        values.isEmpty ? 0 : (values.reduce(0) { $0 + $1 * $1 } / Double(values.count)).squareRoot()
    }
}
