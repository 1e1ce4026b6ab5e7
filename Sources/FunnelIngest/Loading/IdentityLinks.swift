import Foundation
import FunnelCore
import FunnelSQL
import Logging
import PostgresClient

/// The identity step of a file's merge (docs/inputs.md, "Users, devices and identity"), run in the
/// file's transaction after its kinds are merged, for a file whose rows carry device ids.
///
/// A row with a device id and no user id was stored under its device's person id (the validator
/// writes `device:` and the device id as its user_id). Here the file's rows with both ids tie their
/// devices to their users (`identity_links`, the first tie stored wins), and the rows stored under
/// the person id of a device tied now, or tied before and seen again in this file, move to the
/// user. So every raw row of a linked device carries the user id, whatever order the rows arrive
/// in, and the metrics need to know nothing of devices. The cohorts a move changes are marked for
/// compute (`identity_dirty.sql`), as the moved rows keep their files' ids.
///
/// The step holds the identity lock until the file commits: a file that stores device-only rows
/// and one that ties their device, merged at once, would otherwise each miss the other's rows.
/// Files without device ids take no part and no lock.
enum IdentityLinks {
    static let lockKey = AdvisoryLockKey("funnel.ingest.identity")

    /// Ties the devices of file `fileID`'s rows of `kinds` (the kinds whose rows carry device ids)
    /// and moves the rows of the devices tied; returns the number of devices moved.
    static func apply(_ connection: PostgresConnection, fileID: Int64, kinds: [EventKind], logger: Logger) throws -> Int {
        let kinds = kinds.filter(\.namesPeople)
        guard !kinds.isEmpty else { return 0 }
        try connection.query("select pg_advisory_xact_lock($1)", [lockKey.value])
        try connection.execute("truncate stage_identity_moves")
        let prefix = EventKind.devicePersonPrefix
        let ties = kinds.map { kind in
            "select app_id, device_id, user_id, \(kind.timeField) as at from \(kind.rawTable) "
                + "where file_id = $1 and device_id is not null and user_id not like '\(prefix)%'"
        }.joined(separator: " union all ")
        try connection.query(SQLCatalog.text("staging/identity_ties.sql").replacingOccurrences(of: "{{ties}}", with: ties), [fileID])
        let deviceRows = kinds.map { kind in
            "select app_id, device_id from \(kind.rawTable) where file_id = $1 and user_id like '\(prefix)%'"
        }.joined(separator: " union ")
        try connection.query(SQLCatalog.text("staging/identity_tied_devices.sql").replacingOccurrences(of: "{{device_rows}}", with: deviceRows),
                             [fileID])
        // A few devices or many: the moves probe the raw tables' indexes by user only if the
        // planner knows how many.
        try connection.execute("analyze stage_identity_moves")
        let devices = try connection.query(SQLCatalog.text("staging/identity_moves_pending.sql")).scalar(Int.self)
        guard devices > 0 else { return 0 }
        try connection.execute(SQLCatalog.text("staging/identity_dirty.sql"))
        var moved = 0
        for kind in EventKind.allCases where kind.namesPeople {
            moved += try connection.query(moveStatement(for: kind)).scalar(Int.self)
        }
        logger.debug("devices linked to their users", metadata: ["load.devices": "\(devices)", "load.rows_moved": "\(moved)"])
        return devices
    }

    /// The move of one kind's rows (`identity_moves.sql`), filled from its fixed field list.
    static func moveStatement(for kind: EventKind) -> String {
        let columns = kind.fieldNames
        return SQLCatalog.text("staging/identity_moves.sql")
            .replacingOccurrences(of: "{{raw_table}}", with: kind.rawTable)
            .replacingOccurrences(of: "{{columns}}", with: columns.joined(separator: ", "))
            .replacingOccurrences(of: "{{moved_columns}}",
                                  with: columns.map { $0 == EventKind.userField ? "linked_user_id" : $0 }.joined(separator: ", "))
    }
}
