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
        var table = FunnelMedianTable()
        try timed("funnel_points_read") {
            try connection.stream(SQLCatalog.text("intermediate/metrics/int_funnel_points.stream.sql"), batchRows: 50_000) { batch in
                for row in 0..<batch.count {
                    table.add(appID: batch.string(row, 0) ?? "", stepIndex: Int(batch.int64(row, 1)),
                              seconds: batch.float64(row, 2), network: batch.string(row, 3) ?? "",
                              campaign: batch.string(row, 4) ?? "", country: batch.string(row, 5) ?? "",
                              platform: batch.string(row, 6) ?? "")
                }
            }
        }
        return FunnelMediansInFlight(table)
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

/// The default funnel's medians being computed on a thread of their own.
final class FunnelMediansInFlight: @unchecked Sendable {
    // Safe: `rows` is written once by the computing thread before it signals `done`, and read
    // only after waiting on `done`.
    private let done = DispatchSemaphore(value: 0)
    private var rows: [FunnelMedianTable.Row] = []

    init(_ table: FunnelMedianTable) {
        Thread { [self] in
            rows = table.rows()
            done.signal()
        }.start()
    }

    /// The rows, once computed.
    func wait() -> [FunnelMedianTable.Row] {
        done.wait()
        return rows
    }
}
