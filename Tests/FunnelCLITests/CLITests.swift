import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("The funnel command line")
struct CLITests {
    /// The subcommands of `Funnel` (Sources/funnel/Funnel.swift), in declaration order, and those
    /// of its command groups.
    static let commands = ["generate", "db", "migrate", "ingest", "worker", "compute", "report", "plan", "query", "inputs", "backtest", "demo", "run", "status", "apps", "bench"]
    static let groups = [("db", ["start", "stop", "status", "url"]), ("query", ["funnel", "retention", "trends", "stickiness", "lifecycle", "paths"]), ("backtest", ["ltv"]), ("apps", ["list", "delete"]), ("bench", ["generate", "ingest", "compute", "daily", "query"])]

    /// The command names a help text lists under SUBCOMMANDS (description continuation lines and
    /// the closing "See 'funnel help ...'" hint left out).
    static func listedSubcommands(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "SUBCOMMANDS:") else { return [] }
        return lines[(start + 1)...].prefix { !$0.isEmpty }.compactMap { line in
            guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first != " " else { return nil }
            return String(line.dropFirst(2).prefix { $0 != " " })
        }
    }

    @Test("--help lists every command, and every command has its own help")
    func help() throws {
        let root = try FunnelExecutable.run(["--help"])
        #expect(root.status == 0)
        #expect(Self.listedSubcommands(root.stdout) == Self.commands, "\(root.stdout)")
        var commandPaths = Self.commands.map { [$0] }
        for (group, subcommands) in Self.groups {
            let help = try FunnelExecutable.run(["help", group])
            #expect(Self.listedSubcommands(help.stdout) == subcommands, "\(group): \(help.stdout)")
            commandPaths += subcommands.map { [group, $0] }
        }
        for command in commandPaths {
            let help = try FunnelExecutable.run(["help"] + command)
            #expect(help.status == 0, "\(command): \(help.stderr)")
            let usage = "USAGE: funnel \(command.joined(separator: " "))"
            #expect(help.stdout.split(separator: "\n").contains { $0 == usage || $0.hasPrefix(usage + " ") },
                    "\(command): \(help.stdout)")
        }
    }

    @Test("funnel help inputs lists every kind; funnel inputs KIND prints its columns as the validator takes them")
    func inputsHelp() throws {
        let help = try FunnelExecutable.run(["help", "inputs"])
        #expect(help.status == 0)
        for kind in ["installs", "opens", "retention", "purchases", "invites", "ad_spend", "steps", "ux", "events"] {
            #expect(help.stdout.contains("\n  \(kind) "), "\(kind) missing from: \(help.stdout)")
        }
        // The overview wraps at the terminal's width: compare its words.
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("required: event_id, app_id, user_id or device_id, installed_at,"), "\(help.stdout)")
        let installs = try FunnelExecutable.run(["inputs", "installs"])
        #expect(installs.status == 0)
        #expect(installs.stdout.contains("CSV header: event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id,adset,creative,device_id"))
        #expect(installs.stdout.contains("user_id           required  identifier: the app's user id; required unless device_id is given"))
        #expect(installs.stdout.contains("platform          optional  one of: ios, android"))
        #expect(installs.stdout.contains("installed_at      required  timestamp (RFC 3339 with a zone, or Unix epoch milliseconds)"))
        let spend = try FunnelExecutable.run(["inputs", "ad_spend"])
        #expect(spend.status == 0)
        #expect(spend.stdout.contains("hour         optional  hour of the day, 0-23, in the reporting time zone like date"))
        #expect(spend.stdout.contains("CSV header: app_id,date,network,spend,campaign,country,currency,impressions,clicks,hour,adset,creative"))
        let wrong = try FunnelExecutable.run(["inputs", "install"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("no input kind install; the kinds are installs, opens,"))
    }

    @Test("a usage error exits 2 with a message on stderr")
    func usageError() throws {
        let unknownFlag = try FunnelExecutable.run(["migrate", "--no-such-flag"])
        #expect(unknownFlag.status == 2)
        #expect(unknownFlag.stderr.contains("--no-such-flag"))
        let unknownCommand = try FunnelExecutable.run(["frobnicate"])
        #expect(unknownCommand.status == 2)
    }

    @Test("db start then migrate works on a machine that never ran funnel, and db stop stops it")
    func freshHome() throws {
        let home = try TestCluster.makeTemporaryDirectory(prefix: "funnel-home")
        let environment = ["FUNNEL_HOME": home.path]
        defer {
            _ = try? FunnelExecutable.run(["db", "stop"], environment: environment)
            try? FileManager.default.removeItem(at: home)
        }
        #expect(try FunnelExecutable.run(["db", "status"], environment: environment).stdout.contains("not created yet"))
        let start = try FunnelExecutable.run(["db", "start"], environment: environment)
        #expect(start.status == 0, "\(start.stderr)")
        #expect(start.stdout.contains("created and started"))
        let migrate = try FunnelExecutable.run(["migrate", "--json"], environment: environment)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.contains("\"applied\":[\"0001_raw_tables\""))
        let again = try FunnelExecutable.run(["migrate"], environment: environment)
        #expect(again.stdout.contains("schema is up to date"))
        let url = try FunnelExecutable.run(["db", "url"], environment: environment).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try PostgresConnection(connecting: url).query("select count(*) from funnel.schema_migrations").scalar(Int.self) > 0)
        #expect(try FunnelExecutable.run(["db", "status"], environment: environment).stdout.hasPrefix("running"))
        #expect(try FunnelExecutable.run(["db", "stop"], environment: environment).stdout.contains("stopped"))
        #expect(try FunnelExecutable.run(["db", "status"], environment: environment).stdout.hasPrefix("stopped"))
    }

    @Test("db url and db status report a running local Citus cluster's coordinator, and the single cluster beside it")
    func localCitusCoordinator() throws {
        // The layout `db start --citus-workers 2` makes under FUNNEL_HOME/citus; the coordinator
        // runs as a plain PostgreSQL here (what db url and db status read needs no Citus).
        let home = try TestCluster.makeTemporaryDirectory(prefix: "funnel-home")
        let environment = ["FUNNEL_HOME": home.path]
        let citus = CitusCluster(directory: home.appending(path: "citus"), workerCount: 2)
        let coordinator = EmbeddedCluster(directory: citus.coordinator.directory, port: citus.coordinator.port)
        defer {
            _ = try? coordinator.stop()
            _ = try? FunnelExecutable.run(["db", "stop"], environment: environment)
            try? FileManager.default.removeItem(at: home)
        }
        for worker in citus.workers {
            try FileManager.default.createDirectory(at: worker.directory, withIntermediateDirectories: true)
        }
        let single = EmbeddedCluster(directory: home)
        let stoppedURL = try FunnelExecutable.run(["db", "url"], environment: environment)
        #expect(stoppedURL.stdout.trimmingCharacters(in: .newlines) == single.url)
        #expect(try FunnelExecutable.run(["db", "status"], environment: environment).stdout
            .contains("local Citus cluster: stopped (data in \(citus.directory.path); funnel db start --citus-workers 2 starts it)"))

        try coordinator.start()
        let url = try FunnelExecutable.run(["db", "url"], environment: environment)
        #expect(url.status == 0)
        #expect(url.stdout.trimmingCharacters(in: .newlines) == citus.coordinator.url)
        #expect(url.stderr.contains("local Citus cluster's coordinator"))
        #expect(!url.stderr.contains("runs too"))
        #expect(try PostgresConnection(connecting: url.stdout.trimmingCharacters(in: .newlines)).query("select 1").scalar(Int.self) == 1)
        let status = try FunnelExecutable.run(["db", "status"], environment: environment).stdout
        #expect(status.hasPrefix("not created yet"))
        #expect(status.contains("local Citus cluster: coordinator running (pid "))
        #expect(status.contains("0 of 2 worker(s) running"))

        #expect(try FunnelExecutable.run(["db", "start"], environment: environment).status == 0)
        let both = try FunnelExecutable.run(["db", "url"], environment: environment)
        #expect(both.stdout.trimmingCharacters(in: .newlines) == citus.coordinator.url)
        #expect(both.stderr.contains("The single embedded PostgreSQL runs too, at \(single.url)"))
        #expect(try FunnelExecutable.run(["db", "status"], environment: environment).stdout.hasPrefix("running"))
    }

    @Test("two funnel db start processes at once both succeed with one server")
    func concurrentStartProcesses() throws {
        let home = try TestCluster.makeTemporaryDirectory(prefix: "funnel-home")
        let environment = ["FUNNEL_HOME": home.path]
        defer {
            _ = try? FunnelExecutable.run(["db", "stop"], environment: environment)
            try? FileManager.default.removeItem(at: home)
        }
        let outcomes = Locked<[FunnelExecutable.Outcome]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            if let outcome = try? FunnelExecutable.run(["db", "start"], environment: environment) {
                outcomes.withLock { $0.append(outcome) }
            }
        }
        let results = outcomes.withLock { $0 }
        #expect(results.count == 2)
        #expect(results.allSatisfy { $0.status == 0 }, "\(results.map(\.stderr))")
        #expect(results.filter { $0.stdout.contains("already running") }.count == 1)
    }

    @Test("an unreachable --database-url fails with exit 1, says what to do, and hides the password")
    func unreachableDatabase() throws {
        let outcome = try FunnelExecutable.run([
            "migrate", "--database-url", "postgresql://ops:TopSecret99@127.0.0.1:1/funnel?connect_timeout=2",
        ])
        #expect(outcome.status == 1)
        #expect(outcome.stderr.contains("cannot connect to PostgreSQL"))
        #expect(outcome.stderr.contains("host=127.0.0.1"))
        #expect(!outcome.stderr.contains("TopSecret99") && !outcome.stdout.contains("TopSecret99"))
        let url = try FunnelExecutable.run(["db", "url"], environment: ["DATABASE_URL": "postgresql://ops:TopSecret99@db.internal/funnel"])
        #expect(!url.stdout.contains("TopSecret99"))
        #expect(url.stdout.contains("host=db.internal"))
    }

    @Test("migrate against a database given by DATABASE_URL uses it instead of the embedded cluster")
    func databaseURLFromEnvironment() throws {
        let settings = try TestCluster.freshDatabase()
        let home = try TestCluster.makeTemporaryDirectory(prefix: "funnel-unused-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let outcome = try FunnelExecutable.run(["migrate"], environment: ["DATABASE_URL": settings.conninfo, "FUNNEL_HOME": home.path])
        #expect(outcome.status == 0, "\(outcome.stderr)")
        #expect(try settings.connect().query("select count(*) from funnel.schema_migrations").scalar(Int.self) > 0)
        #expect(!FileManager.default.fileExists(atPath: home.appending(path: "data").path), "the embedded cluster was not created")
    }
}
