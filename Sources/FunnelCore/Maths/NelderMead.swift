import Foundation

/// A small derivative-free minimiser (Nelder & Mead 1965, the standard coefficients: reflection 1,
/// expansion 2, contraction 1/2, shrink 1/2) for smooth objectives of a few variables, such as
/// the purchase models' log-likelihoods on log-scaled parameters.
///
/// The simplex is restarted around the best point found (a fresh simplex of the initial step)
/// until a restart no longer improves the value by more than `valueTolerance`: a single run of
/// Nelder–Mead can stall on a collapsed simplex short of the minimum, restarts are the usual cure.
/// A non-finite objective value is treated as +infinity, so the objective can simply return
/// `.infinity` (or NaN) outside its domain.
public struct NelderMead: Sendable {
    /// What a minimisation found.
    public struct Result: Sendable, Equatable {
        /// The best point.
        public let point: [Double]
        /// The objective at `point`.
        public let value: Double
        /// Objective evaluations, all runs together.
        public let evaluations: Int
        /// Runs of the simplex (1 + restarts).
        public let runs: Int
        /// True when the last run met the tolerances before `maximumEvaluations`.
        public let converged: Bool
    }

    /// Side of the initial simplex along each axis.
    public var initialStep: Double
    /// A run stops when the simplex's values differ by less than this (absolute) ...
    public var valueTolerance: Double
    /// ... and its points by less than this in every coordinate.
    public var pointTolerance: Double
    /// Evaluations allowed per run.
    public var maximumEvaluations: Int
    /// Restarts at most, after the first run.
    public var maximumRestarts: Int

    public init(initialStep: Double = 0.5, valueTolerance: Double = 1e-10, pointTolerance: Double = 1e-8,
                maximumEvaluations: Int = 20_000, maximumRestarts: Int = 10) {
        self.initialStep = initialStep
        self.valueTolerance = valueTolerance
        self.pointTolerance = pointTolerance
        self.maximumEvaluations = maximumEvaluations
        self.maximumRestarts = maximumRestarts
    }

    /// Minimises `objective` from `start`.
    public func minimize(_ objective: ([Double]) -> Double, from start: [Double]) -> Result {
        precondition(!start.isEmpty, "NelderMead needs at least one variable")
        let safe: ([Double]) -> Double = { point in
            let value = objective(point)
            return value.isFinite ? value : .infinity
        }
        var best = run(safe, from: start)
        var evaluations = best.evaluations
        var runs = 1
        var converged = best.converged
        for _ in 0..<maximumRestarts {
            let next = run(safe, from: best.point)
            evaluations += next.evaluations
            runs += 1
            converged = next.converged
            let improvement = best.value - next.value
            if next.value < best.value { best = next }
            if !(improvement > valueTolerance) { break }
        }
        return Result(point: best.point, value: best.value, evaluations: evaluations, runs: runs,
                      converged: converged)
    }

    private func run(_ f: ([Double]) -> Double, from start: [Double]) -> Result {
        let n = start.count
        var simplex = [start]
        for axis in 0..<n {
            var vertex = start
            vertex[axis] += initialStep
            simplex.append(vertex)
        }
        var values = simplex.map(f)
        var evaluations = n + 1
        var converged = false

        func blend(_ p: [Double], _ q: [Double], _ t: Double) -> [Double] {
            // p + t (q - p)
            zip(p, q).map { $0 + t * ($1 - $0) }
        }

        while evaluations < maximumEvaluations {
            // Order: best first.
            let order = values.indices.sorted { values[$0] < values[$1] }
            simplex = order.map { simplex[$0] }
            values = order.map { values[$0] }

            let valueSpread = values[n] - values[0]
            var pointSpread = 0.0
            for vertex in simplex.dropFirst() {
                for (x, y) in zip(vertex, simplex[0]) { pointSpread = max(pointSpread, abs(x - y)) }
            }
            if valueSpread.isFinite, valueSpread <= valueTolerance, pointSpread <= pointTolerance {
                converged = true
                break
            }

            var centroid = [Double](repeating: 0, count: n)
            for vertex in simplex.prefix(n) {
                for i in 0..<n { centroid[i] += vertex[i] / Double(n) }
            }
            let worst = simplex[n]
            let reflected = blend(centroid, worst, -1)
            let reflectedValue = f(reflected)
            evaluations += 1

            if reflectedValue < values[0] {
                let expanded = blend(centroid, worst, -2)
                let expandedValue = f(expanded)
                evaluations += 1
                if expandedValue < reflectedValue {
                    simplex[n] = expanded
                    values[n] = expandedValue
                } else {
                    simplex[n] = reflected
                    values[n] = reflectedValue
                }
                continue
            }
            if reflectedValue < values[n - 1] {
                simplex[n] = reflected
                values[n] = reflectedValue
                continue
            }
            // Contract: outside when the reflection beat the worst point, inside otherwise.
            let outside = reflectedValue < values[n]
            let contracted = outside ? blend(centroid, reflected, 0.5) : blend(centroid, worst, 0.5)
            let contractedValue = f(contracted)
            evaluations += 1
            if contractedValue < (outside ? reflectedValue : values[n]) {
                simplex[n] = contracted
                values[n] = contractedValue
                continue
            }
            // Shrink towards the best point.
            for i in 1...n {
                simplex[i] = blend(simplex[0], simplex[i], 0.5)
                values[i] = f(simplex[i])
            }
            evaluations += n
        }
        let bestIndex = values.indices.min { values[$0] < values[$1] }!
        return Result(point: simplex[bestIndex], value: values[bestIndex], evaluations: evaluations,
                      runs: 1, converged: converged)
    }
}
