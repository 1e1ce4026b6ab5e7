import Foundation
import PostgresClient
import Testing
import TestSupport

@Suite("Errors, transactions and advisory locks")
struct ErrorAndTransactionTests {
    @Test("a unique violation carries SQLSTATE 23505, its detail, and matches its class")
    func uniqueViolation() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table users (id text primary key)")
        try connection.query("insert into users values ($1)", ["u1"])
        let error = #expect(throws: PostgresError.self) {
            try connection.query("insert into users values ($1)", ["u1"])
        }
        #expect(error?.sqlState == .uniqueViolation)
        #expect(error?.code == .server)
        #expect(error?.detail?.contains("(id)=(u1)") == true)
        #expect(error?.isTransient == false)
        let matchesClass = switch error?.sqlState ?? "00000" {
        case SQLState.Class.integrityConstraintViolation: true
        default: false
        }
        #expect(matchesClass)
        #expect(error?.debugDescription.contains("insert into users") == true)
    }

    @Test("a transaction whose body throws rolls back, and one that returns commits")
    func transactionRollsBack() throws {
        struct Oops: Error {}
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table t (n int)")
        #expect(throws: Oops.self) {
            try connection.transaction { connection in
                try connection.query("insert into t values (1)")
                throw Oops()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.query("select count(*) from t").scalar(Int.self) == 0)
        let value = try connection.transaction { connection in
            try connection.query("insert into t values (2)")
            return "done"
        }
        #expect(value == "done")
        #expect(try connection.query("select count(*) from t").scalar(Int.self) == 1)
    }

    @Test("a nested transaction rolls back to its savepoint only")
    func nestedTransaction() throws {
        struct Oops: Error {}
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table t (n int)")
        try connection.transaction { connection in
            try connection.query("insert into t values (1)")
            try? connection.transaction { connection in
                try connection.query("insert into t values (2)")
                throw Oops()
            }
            try connection.query("insert into t values (3)")
        }
        let values = try connection.query("select n from t order by n").map { try $0.decode(Int.self, at: 0) }
        #expect(values == [1, 3])
    }

    @Test("a server-side failure inside a transaction rolls it back and leaves the connection usable")
    func serverFailureInTransaction() throws {
        let connection = try TestCluster.freshDatabase().connect()
        try connection.execute("create table t (n int primary key)")
        #expect(throws: PostgresError.self) {
            try connection.transaction { connection in
                try connection.query("insert into t values (1)")
                try connection.query("insert into t values (1)")
            }
        }
        #expect(try connection.query("select count(*) from t").scalar(Int.self) == 0)
    }

    @Test("connection refused is a transient connection failure; a bad query is not")
    func connectionVersusQueryFailure() throws {
        let emptyDirectory = try TestCluster.makeTemporaryDirectory(prefix: "no-server")
        let refused = #expect(throws: PostgresError.self) {
            _ = try PostgresConnection(connecting: "host=\(emptyDirectory.path) dbname=x user=x")
        }
        #expect(refused?.code == .connectionFailed)
        #expect(refused?.isConnectionFailure == true)
        #expect(refused?.isTransient == true)

        let connection = try TestCluster.freshDatabase().connect()
        let syntax = #expect(throws: PostgresError.self) { try connection.query("selec 1") }
        #expect(syntax?.sqlState == .syntaxError)
        #expect(syntax?.isConnectionFailure == false)
        #expect(syntax?.isTransient == false)
    }

    @Test("a connection whose backend is terminated reports a connection failure")
    func connectionLost() throws {
        let settings = try TestCluster.freshDatabase()
        let victim = try settings.connect()
        let killer = try settings.connect()
        try killer.query("select pg_terminate_backend($1)", [Int(victim.backendPID)])
        let error = #expect(throws: PostgresError.self) { try victim.query("select 1") }
        #expect(error?.isConnectionFailure == true)
        #expect(error?.isTransient == true)
        #expect(!victim.isHealthy)
    }

    @Test("a password never appears in a connection error or a redacted description")
    func passwordNeverShown() throws {
        let url = "postgresql://analyst:Sup3rSecretPw@127.0.0.1:1/funnel?connect_timeout=2"
        let error = #expect(throws: PostgresError.self) { _ = try PostgresConnection(connecting: url) }
        #expect(error.map { !"\($0)".contains("Sup3rSecretPw") && !$0.debugDescription.contains("Sup3rSecretPw") } == true)
        let redacted = ConnectionString.redacted(url)
        #expect(!redacted.contains("Sup3rSecretPw"))
        #expect(redacted.contains("host=127.0.0.1") && redacted.contains("user=analyst"))
        #expect(!ConnectionString.redacted("host=x password=hunter2").contains("hunter2"))
        #expect(ConnectionString.redacted("not a = valid 'conninfo") == "<invalid connection string>")
    }

    @Test("a session advisory lock excludes other sessions until released")
    func advisoryLocks() throws {
        let settings = try TestCluster.freshDatabase()
        let first = try settings.connect()
        let second = try settings.connect()
        let key = AdvisoryLockKey("funnel.test.lock")
        #expect(key == AdvisoryLockKey("funnel.test.lock"))
        #expect(key != AdvisoryLockKey("funnel.test.other"))
        #expect(try first.tryAdvisoryLock(key))
        #expect(try second.tryAdvisoryLock(key) == false)
        #expect(try second.withAdvisoryLockIfFree(key) { "ran" } == nil)
        #expect(try first.advisoryUnlock(key))
        #expect(try second.withAdvisoryLockIfFree(key) { "ran" } == "ran")
        #expect(try first.tryAdvisoryLock(key))
    }
}
