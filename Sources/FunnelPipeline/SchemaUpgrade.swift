import FunnelCompute
public import Logging
public import PostgresClient

/// The schema brought up to date before a command uses funnel's tables: every command that reads
/// or writes them creates or upgrades the schema itself (the migrations are idempotent and
/// serialised by an advisory lock, so concurrent commands are safe). Nothing is written when the
/// schema is current, so a role that may only read still works.
public enum SchemaUpgrade {
    /// Applies the migrations (and dashboard views) this binary carries that the database lacks,
    /// saying so in one line.
    public static func ensure(_ connection: PostgresConnection, logger: Logger) throws {
        let migrator = Migrator()
        do {
            guard try migrator.needsRun(connection) else { return }
            var quiet = logger
            quiet.logLevel = max(logger.logLevel, .warning)
            let report = try migrator.migrate(connection, logger: quiet)
            guard !report.applied.isEmpty else { return }
            logger.info(report.alreadyApplied == 0 ? "created the schema" : "upgraded the schema",
                        metadata: ["migrations.applied": "\(report.applied.count)",
                                   "migrations.last": .string(report.applied.last ?? "")])
        } catch let error as MigrationError {
            throw CommandFailure("\(error)")
        }
    }
}
