import Logging

extension PostgresConnection {
    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws (and
    /// rethrows). Inside an open transaction it uses a savepoint, so calls nest.
    public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let nested = isInTransaction
        savepointCount += 1
        let savepoint = "funnel_savepoint_\(savepointCount)"
        try execute(nested ? "savepoint \(savepoint)" : "begin")
        let value: T
        do {
            value = try body(self)
        } catch {
            do {
                try execute(nested ? "rollback to savepoint \(savepoint); release savepoint \(savepoint)" : "rollback")
            } catch let rollbackError {
                logger.warning("rollback failed", metadata: ["db.error": "\(rollbackError)"])
            }
            throw error
        }
        try execute(nested ? "release savepoint \(savepoint)" : "commit")
        return value
    }
}

/// A 64-bit key for PostgreSQL advisory locks, derived from a stable name
/// (`AdvisoryLockKey("funnel.migrate")`) with FNV-1a, so every process agrees on it.
public struct AdvisoryLockKey: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let value: Int64

    public init(_ name: String) {
        self.name = name
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        self.value = Int64(bitPattern: hash)
    }

    public var description: String { "\(name) (\(value))" }
}

extension PostgresConnection {
    /// Takes a connection-level advisory lock (`pg_advisory_lock`: held until released or the
    /// connection ends), waiting for it.
    public func advisoryLock(_ key: AdvisoryLockKey) throws {
        try query("select pg_advisory_lock($1)", [key.value])
    }

    /// Takes a connection-level advisory lock if it is free; returns whether it was taken.
    public func tryAdvisoryLock(_ key: AdvisoryLockKey) throws -> Bool {
        try query("select pg_try_advisory_lock($1)", [key.value]).scalar(Bool.self)
    }

    /// Releases a connection-level advisory lock this connection holds; returns whether it was held.
    @discardableResult
    public func advisoryUnlock(_ key: AdvisoryLockKey) throws -> Bool {
        try query("select pg_advisory_unlock($1)", [key.value]).scalar(Bool.self)
    }

    /// Runs `body` holding a connection-level advisory lock (waiting for it), and releases it after, also
    /// when `body` throws. A lost connection releases the lock on the server by itself.
    public func withAdvisoryLock<T>(_ key: AdvisoryLockKey, _ body: () throws -> T) throws -> T {
        try advisoryLock(key)
        defer {
            if isHealthy { _ = try? advisoryUnlock(key) }
        }
        return try body()
    }

    /// Runs `body` if the lock is free, holding it meanwhile; returns nil without running it when
    /// another connection holds the lock.
    public func withAdvisoryLockIfFree<T>(_ key: AdvisoryLockKey, _ body: () throws -> T) throws -> T? {
        guard try tryAdvisoryLock(key) else { return nil }
        defer {
            if isHealthy { _ = try? advisoryUnlock(key) }
        }
        return try body()
    }
}
