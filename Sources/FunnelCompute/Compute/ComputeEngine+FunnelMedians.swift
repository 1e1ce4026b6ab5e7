import Foundation
import FunnelCore
import FunnelSQL
import PostgresClient

extension ComputeEngine {
    /// Fills the default funnel's points from every user's facts and starts computing their
    /// medians (`FunnelMedianTable`) on a thread of its own, so the connection can run the next
    /// statements meanwhile; `finishFunnelMedians` writes them. For a whole-history rebuild (and a
    /// database whose points were never built): `int_funnel_points.fold.sql` keeps them after.
    func startFunnelMedians(_ connection: PostgresConnection) throws -> FunnelMediansInFlight {
        try timed("funnel_points_full") {
            try connection.execute(SQLCatalog.text("intermediate/metrics/int_funnel_points.sql"))
        }
        let inFlight = FunnelMediansInFlight()
        try timed("funnel_points_read") {
            try connection.stream(SQLCatalog.text("intermediate/metrics/int_funnel_points.stream.sql"), batchRows: 10_000) { batch in
                for row in 0..<batch.count {
                    inFlight.table.add(appID: batch.string(row, 0) ?? "", stepIndex: Int(batch.int64(row, 1)),
                                       seconds: batch.float64(row, 2), network: batch.string(row, 3) ?? "",
                                       campaign: batch.string(row, 4) ?? "", country: batch.string(row, 5) ?? "",
                                       platform: batch.string(row, 6) ?? "")
                }
            }
        }
        inFlight.start()
        return inFlight
    }

    /// Waits for the medians `startFunnelMedians` computes and writes them, with step 0 from the
    /// cohort rollup, which must be built by then (`int_funnel_medians.insert.sql`).
    func finishFunnelMedians(_ connection: PostgresConnection, _ inFlight: FunnelMediansInFlight) throws {
        let rows = inFlight.wait()
        try timed("funnel_medians") {
            try connection.query(SQLCatalog.text("intermediate/metrics/int_funnel_medians.insert.sql"), [
                rows.map(\.appID), rows.map(\.stepIndex), rows.map(\.dim), rows.map(\.dimValue), rows.map(\.users),
                rows.map(\.anchorSeconds), rows.map(\.anchorBelow), rows.map(\.anchorTies), rows.map(\.medianSeconds),
            ])
        }
    }
}

/// The default funnel's points, filled on the caller's thread, then their medians computed on a
/// thread of their own.
final class FunnelMediansInFlight: @unchecked Sendable {
    // Safe: `table` is filled by the caller before `start`, and from then on touched only by the
    // computing thread, which takes it whole (so its points are sorted in place, not copied);
    // `rows` is written by that thread before it signals `done` and read only after waiting on it.
    var table = FunnelMedianTable()
    private let done = DispatchSemaphore(value: 0)
    private var rows: [FunnelMedianTable.Row] = []

    /// Starts computing the rows of the points added so far.
    func start() {
        Thread { [self] in
            var points = FunnelMedianTable()
            swap(&points, &table)
            rows = points.rows()
            done.signal()
        }.start()
    }

    /// The rows, once computed.
    func wait() -> [FunnelMedianTable.Row] {
        done.wait()
        return rows
    }
}
