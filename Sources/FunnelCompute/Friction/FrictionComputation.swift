public import FunnelCore
import FunnelSQL
public import Logging
public import PostgresClient
import Foundation

/// Which `ux` data a friction run rebuilds episodes for: the sessions with an event of these apps
/// on these UTC dates, or (`newFiles`) the sessions with an event in the files no run has read.
/// Impact and breakdown are then recomputed whole for every app concerned.
public struct FrictionScope: Sendable, Equatable {
    /// nil = every app.
    public var apps: [String]?
    /// First and last UTC date (inclusive); nil = open.
    public var from: PostgresDate?
    public var to: PostgresDate?
    /// False when no telemetry changed but outcomes may have (new steps or opens): episodes stay,
    /// impact is recomputed.
    public var rescansSessions: Bool
    /// True: the sessions rescanned are those with a row in the loaded files no friction run has
    /// read (whatever their dates), not those of `apps`, `from` and `to`. What an incremental run
    /// needs: a session no new row belongs to keeps its episodes.
    public var newFilesOnly: Bool

    public init(apps: [String]? = nil, from: PostgresDate? = nil, to: PostgresDate? = nil,
                rescansSessions: Bool = true) {
        self.apps = apps
        self.from = from
        self.to = to
        self.rescansSessions = rescansSessions
        self.newFilesOnly = false
    }

    /// A full recompute.
    public static let everything = FrictionScope()

    /// The sessions with an event in the loaded files no friction run has read.
    public static let newFiles: FrictionScope = {
        var scope = FrictionScope()
        scope.newFilesOnly = true
        return scope
    }()

    /// Every session of every app: the users' reached screens and outcomes are rebuilt from every
    /// raw row too (otherwise only the files no friction run has read are taken in).
    public var rebuildsEverything: Bool {
        rescansSessions && !newFilesOnly && apps == nil && from == nil && to == nil
    }

    /// Impact and breakdown only, for every app with episodes.
    public static let impactOnly = FrictionScope(rescansSessions: false)
}

/// How friction is detected and judged.
public struct FrictionSettings: Sendable, Equatable {
    public var rotationWindowSeconds: Double
    public var rules: FrictionFlagRules
    /// `ux` rows fetched per round trip; one session at a time is held in memory besides.
    public var fetchBatchSize: Int
    /// A breakdown slice (one input mode, orientation or platform) "explains" a flagged friction
    /// when it carries at least this share of the users lost.
    public var explainingShare: Double

    public init(rotationWindowSeconds: Double = 1.0, rules: FrictionFlagRules = FrictionFlagRules(),
                fetchBatchSize: Int = 20_000, explainingShare: Double = 0.8) {
        self.rotationWindowSeconds = rotationWindowSeconds
        self.rules = rules
        self.fetchBatchSize = fetchBatchSize
        self.explainingShare = explainingShare
    }
}

/// One flagged (screen, friction type) of an app, as ranked in `fct_friction_impact`.
public struct FlaggedFriction: Sendable, Equatable {
    public var appID: String
    public var screen: String
    public var frictionType: String
    public var rank: Int
    public var usersHit: Int
    public var usersLost: Double
    public var qValue: Double
}

/// What a friction run did.
public struct FrictionSummary: Sendable, Equatable {
    public var sessionsScanned: Int = 0
    public var eventsScanned: Int = 0
    public var episodesWritten: Int = 0
    /// (screen, friction type) pairs tested, over all apps recomputed.
    public var pairsTested: Int = 0
    /// Flagged frictions, by app then rank.
    public var flagged: [FlaggedFriction] = []
    /// Loaded files taken into the users' reached screens and outcomes (all of them on a rebuild).
    public var filesFolded: Int = 0
    public var foldSeconds: Double = 0
    public var episodeSeconds: Double = 0
    public var impactSeconds: Double = 0

    /// The whole run's time: outcomes, episodes and impact.
    public var seconds: Double { foldSeconds + episodeSeconds + impactSeconds }
}

/// Onboarding friction: rebuilds `fct_friction_episodes` for the sessions of a scope from `ux`
/// telemetry (streamed session by session through a cursor), then recomputes
/// `fct_friction_impact` and `fct_friction_breakdown` whole for the apps concerned, all in one
/// transaction. Running it twice gives the same tables.
///
/// Incremental: only the sessions with an event in the new files (or in the scope's dates) are
/// re-detected, each on all its events, so a session spanning files or days is judged whole; a
/// user's first install arriving later updates the platform their episodes carry. What impact needs
/// of every user (the screens they reached, whether they completed onboarding and returned on day
/// 1) is kept in tables that each run brings up to date from the loaded files no run has read
/// (`friction_files`), so impact, recomputed whole per app, is an aggregate over kept rows.
///
/// A day-1 return is counted in the reporting time zone and under the day rule of the
/// configuration in force (`ComputeSettings`, as the metrics count day 1); the run records them
/// (`computed_under`, lane `friction`) in its transaction, and a run under others rebuilds the
/// outcomes.
public struct FrictionComputation: Sendable {
    public var settings: FrictionSettings

    public init(settings: FrictionSettings = FrictionSettings()) {
        self.settings = settings
    }

    /// Brings the friction tables up to date for `scope`.
    public func run(on connection: PostgresConnection, scope: FrictionScope = .everything,
                    logger: Logger) throws -> FrictionSummary {
        let outermost = !connection.isInTransaction
        return try connection.transaction { connection in
            // One snapshot: the files the run takes in are exactly the rows it reads (a caller's
            // transaction keeps its own isolation).
            if outermost { try connection.execute("set transaction isolation level repeatable read") }
            // As in compute: compiling a statement (the outcomes' fold compiled about 200
            // functions) cost more than it saved, on a day's rows and on a rebuild alike.
            try connection.execute("set local jit = off")
            if scope.rebuildsEverything {
                // As the metrics' rebuild does: every user's outcomes joined with every open and
                // install hash in memory instead of sorting to disk for merge joins (the outcomes
                // took 34 s at 300k users with the server's 64 MB).
                try ComputeEngine.hashInMemory(connection)
            }
            var summary = FrictionSummary()
            try connection.execute(SQLCatalog.text("intermediate/friction/work_tables.sql"))
            // The sessions to rescan are chosen first: the new files' sessions are those of the
            // files no run has read, which the outcomes' fold records as read.
            // A rebuild of every session reads them all without listing them first.
            let scopeStart = Date()
            if scope.rescansSessions && !scope.rebuildsEverything {
                try connection.query(SQLCatalog.text("intermediate/friction/scope_sessions.sql"),
                                     [scope.apps, scope.from, scope.to, scope.newFilesOnly])
            }
            let scopeSeconds = Date().timeIntervalSince(scopeStart)
            let foldStart = Date()
            // Outcomes counted under another time zone or day rule are rebuilt, and then every
            // app's impact is recomputed.
            let dayRule = try dayRuleInForce(on: connection)
            let dayRuleChanged = dayRule.changed
            let rebuildsOutcomes = scope.rebuildsEverything || dayRuleChanged
            if let previous = dayRule.previous, dayRuleChanged, !scope.rebuildsEverything {
                logger.info("friction's day-1 returns were counted under another time zone or day rule: recounting them all",
                            metadata: ["friction.before": .string(previous),
                                       "friction.time_zone": .string(dayRule.timeZone),
                                       "friction.day_rule": .string(dayRule.dayRule)])
            }
            summary.filesFolded = try foldOutcomes(on: connection, rebuild: rebuildsOutcomes,
                                                   timeZone: dayRule.timeZone, dayRule: dayRule.dayRule)
            summary.foldSeconds = Date().timeIntervalSince(foldStart)
            logger.info("friction outcomes brought up to date", metadata: [
                "friction.files": "\(summary.filesFolded)", "friction.rebuilt": "\(rebuildsOutcomes)",
                "friction.seconds": .string(String(format: "%.3f", summary.foldSeconds)),
            ])
            if scope.rescansSessions {
                let episodeStart = Date()
                try connection.query(SQLCatalog.text(scope.rebuildsEverything ? "marts/friction/fct_friction_episodes.delete_all.sql"
                                                                              : "marts/friction/fct_friction_episodes.delete_scope.sql"))
                try rebuildEpisodes(on: connection, wholeHistory: scope.rebuildsEverything, summary: &summary)
                if scope.rebuildsEverything {
                    try connection.execute(SQLCatalog.text("marts/friction/fct_friction_episodes.platforms.full.sql"))
                } else if !rebuildsOutcomes {
                    try connection.execute(SQLCatalog.text("marts/friction/fct_friction_episodes.platforms.sql"))
                }
                summary.episodeSeconds = scopeSeconds + Date().timeIntervalSince(episodeStart)
                logger.info("friction episodes rebuilt", metadata: [
                    "friction.sessions": "\(summary.sessionsScanned)", "friction.events": "\(summary.eventsScanned)",
                    "friction.episodes": "\(summary.episodesWritten)",
                ])
            }

            // The users who hit each (screen, friction type), which the impact and breakdown
            // count: derived again for the rescanned users, or all of them after the outcomes
            // were rebuilt (every class may have moved).
            try connection.execute(SQLCatalog.text(rebuildsOutcomes ? "intermediate/friction/int_friction_hits.sql" : "intermediate/friction/int_friction_hits.fold.sql"))

            let impactStart = Date()
            // The apps with sessions rescanned (after a rebuild, every app with telemetry: the
            // outcomes' fold listed their screens) or with episodes.
            let apps = try (dayRuleChanged ? nil : scope.apps) ?? connection.query("""
                select distinct app_id from friction_scope_sessions
                union select distinct app_id from int_friction_screens where $1::boolean
                union select distinct app_id from fct_friction_episodes order by 1
                """, [scope.rebuildsEverything]).map { try $0.decode(String.self, at: 0) }
            try recomputeImpact(on: connection, apps: apps, summary: &summary)
            try ComputeLedger(connection).recordComputedUnder(lane: .friction)
            summary.impactSeconds = Date().timeIntervalSince(impactStart)
            logger.info("friction impact recomputed", metadata: [
                "friction.apps": "\(apps.count)", "friction.pairs": "\(summary.pairsTested)",
                "friction.flagged": "\(summary.flagged.count)",
            ])
            return summary
        }
    }
}
