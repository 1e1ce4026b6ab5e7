import Foundation
import FunnelCore
import PostgresClient

/// The events of a funnel statement as they arrive (in any order), kept in columns: per row its
/// user (an index into the users seen), time, matcher bits (``wordCount`` words a row), breakdown
/// value (an index into the values seen) and interval start. Users and breakdown values are kept
/// once each, as bytes, so reading a row allocates nothing. ``forEachUser(sortingByTime:statement:_:)`` then hands each
/// user's events in time order to the evaluator.
struct FunnelEventColumns {
    private var users = ByteKeyTable()
    private var values = ByteKeyTable()
    private var userOfRow: [Int32] = []
    private var micros: [Int64] = []
    /// Row r's matcher bits are masks[r * wordCount ..< (r + 1) * wordCount].
    private var masks: [Int64] = []
    /// The statement's matches columns (``FunnelQueryStatement/wordCount``).
    let wordCount: Int
    /// -1: no value (NULL).
    private var valueOfRow: [Int32] = []
    /// Int64.min: NULL (only read for funnel trends).
    private var intervals: [Int64] = []
    private var key: [UInt8] = []
    private var checked = false

    var rowCount: Int { micros.count }

    /// Columns for a statement with `wordCount` matches columns.
    init(wordCount: Int) {
        self.wordCount = wordCount
    }

    /// The statement's columns: app_id, user_id, occurred_at, matches, breakdown, interval_start,
    /// then matches_2, matches_3, ... when there are more words.
    var expectedTypes: [PostgresType] {
        [.text, .text, .timestamptz, .int8, .text, .int8] + Array(repeating: .int8, count: wordCount - 1)
    }

    /// Appends one batch of the statement's rows.
    mutating func append(_ batch: PostgresBinaryBatch) throws {
        if !checked {
            let expected = expectedTypes
            let types = (0..<expected.count).map { batch.type(of: $0) }
            guard types == expected else {
                throw FunnelQueryError("the funnel statement returned columns of types \(types), expected \(expected)")
            }
            checked = true
        }
        let count = batch.count
        var previousUser: Int32 = -1
        var previousValue: Int32 = -1
        for row in 0..<count {
            // The key: app, a NUL (which text cannot hold), user.
            key.removeAll(keepingCapacity: true)
            key.append(contentsOf: batch.bytes(row, 0))
            key.append(0)
            key.append(contentsOf: batch.bytes(row, 1))
            let user = key.withUnsafeBytes { bytes in
                previousUser >= 0 && users.key(Int(previousUser), equals: bytes) ? previousUser : users.index(of: bytes)
            }
            previousUser = user
            userOfRow.append(user)
            micros.append(batch.timestampMicros(row, 2))
            masks.append(batch.int64(row, 3))
            for word in 1..<wordCount { masks.append(batch.int64(row, 5 + word)) }
            if batch.isNull(row, 4) {
                valueOfRow.append(-1)
            } else {
                let bytes = batch.bytes(row, 4)
                if previousValue < 0 || !values.key(Int(previousValue), equals: bytes) {
                    previousValue = values.index(of: bytes)
                }
                valueOfRow.append(previousValue)
            }
            intervals.append(batch.isNull(row, 5) ? Int64.min : batch.int64(row, 5))
        }
    }

    /// Hands each user's events to `body`, in time order when `sortingByTime` (the rows came in
    /// any order; ties keep the order they came in), else in the order they came in (the rows
    /// came in the statement's order). With `sortingByTime`, a user whose events at one instant
    /// differ (in the steps they fill or their breakdown value) is not handed: the order of such
    /// ties is the statement's (kind, then event id), which the rows do not carry. Those users'
    /// (app, user) are returned, to read again in order.
    func forEachUser(sortingByTime: Bool, statement: FunnelQueryStatement,
                     _ body: (_ app: String, _ user: String, [FunnelEventRow], [Int64?]) throws -> Void) throws
        -> [(app: String, user: String)] {
        let userCount = users.count
        // Rows grouped by user (a counting sort), each group in arrival order.
        var starts = [Int](repeating: 0, count: userCount + 1)
        for user in userOfRow { starts[Int(user) + 1] += 1 }
        for user in 0..<userCount { starts[user + 1] += starts[user] }
        var next = starts
        var order = [Int32](repeating: 0, count: rowCount)
        for (row, user) in userOfRow.enumerated() {
            order[next[Int(user)]] = Int32(row)
            next[Int(user)] += 1
        }
        let valueStrings: [String] = (0..<values.count).map { values.string($0) }
        var stepsOfMask: [Int64: (steps: [Int8], named: [Int8])] = [:]
        var stepsOfWideMask: [ArraySlice<Int64>: (steps: [Int8], named: [Int8])] = [:]
        let words = wordCount
        var deferred: [(app: String, user: String)] = []
        var events: [FunnelEventRow] = []
        var eventIntervals: [Int64?] = []
        var lastApp: (bytes: [UInt8], name: String?) = ([], nil)
        for user in 0..<userCount {
            let range = starts[user]..<starts[user + 1]
            if sortingByTime {
                Self.sortByTime(&order[range], micros: micros)
            }
            var tied = false
            if sortingByTime {
                var index = range.lowerBound + 1
                while index < range.upperBound {
                    let left = Int(order[index - 1]), right = Int(order[index])
                    if micros[left] == micros[right] && (valueOfRow[left] != valueOfRow[right]
                        || (words == 1 ? masks[left] != masks[right]
                            : !masks[left * words ..< (left + 1) * words].elementsEqual(masks[right * words ..< (right + 1) * words]))) {
                        tied = true
                        break
                    }
                    index += 1
                }
            }
            let (app, userID) = users.withKey(user) { key -> (String, String) in
                let separator = key.firstIndex(of: 0) ?? key.count
                let appBytes = UnsafeRawBufferPointer(rebasing: key[..<separator])
                if !lastApp.bytes.elementsEqual(appBytes) || lastApp.name == nil {
                    lastApp = (Array(appBytes), String(decoding: appBytes, as: UTF8.self))
                }
                return (lastApp.name!, String(decoding: UnsafeRawBufferPointer(rebasing: key[min(separator + 1, key.count)...]), as: UTF8.self))
            }
            if tied {
                deferred.append((app, userID))
                continue
            }
            events.removeAll(keepingCapacity: true)
            eventIntervals.removeAll(keepingCapacity: true)
            for position in range {
                let row = Int(order[position])
                let steps: (steps: [Int8], named: [Int8])
                if words == 1 {
                    let mask = masks[row]
                    if let known = stepsOfMask[mask] {
                        steps = known
                    } else {
                        steps = (statement.steps(of: masks[row...row]), statement.namedSteps(of: masks[row...row]))
                        stepsOfMask[mask] = steps
                    }
                } else {
                    let mask = masks[row * words ..< (row + 1) * words]
                    if let known = stepsOfWideMask[mask] {
                        steps = known
                    } else {
                        steps = (statement.steps(of: mask), statement.namedSteps(of: mask))
                        stepsOfWideMask[mask] = steps
                    }
                }
                let value = valueOfRow[row]
                events.append(FunnelEventRow(micros: micros[row], steps: steps.steps,
                                             breakdown: value < 0 ? nil : valueStrings[Int(value)],
                                             serial: position, namedSteps: steps.named))
                eventIntervals.append(intervals[row] == Int64.min ? nil : intervals[row])
            }
            try body(app, userID, events, eventIntervals)
        }
        return deferred
    }

    /// Sorts one user's rows by time, ties in arrival (row) order: insertion sort, as the rows of
    /// a user mostly arrive in time order already.
    private static func sortByTime(_ rows: inout ArraySlice<Int32>, micros: [Int64]) {
        guard rows.count > 1 else { return }
        if rows.count > 64 {
            rows.sort { (micros[Int($0)], $0) < (micros[Int($1)], $1) }
            return
        }
        var index = rows.startIndex + 1
        while index < rows.endIndex {
            let row = rows[index]
            let time = micros[Int(row)]
            var hole = index
            while hole > rows.startIndex {
                let before = rows[hole - 1]
                let beforeTime = micros[Int(before)]
                guard beforeTime > time || (beforeTime == time && before > row) else { break }
                rows[hole] = before
                hole -= 1
            }
            rows[hole] = row
            index += 1
        }
    }
}

/// A set of byte strings, each given an index in the order first seen: an open-addressing hash
/// table over one buffer of the keys' bytes.
struct ByteKeyTable {
    private var bytes: [UInt8] = []
    /// Key i is bytes[starts[i]..<starts[i + 1]].
    private var starts: [Int] = [0]
    private var hashes: [UInt64] = []
    /// Key index + 1 per slot; 0 is empty. The count is a power of two.
    private var slots = [Int32](repeating: 0, count: 1024)

    var count: Int { hashes.count }

    /// The key's index, adding it when new.
    mutating func index(of key: UnsafeRawBufferPointer) -> Int32 {
        let hash = Self.hash(key)
        var mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = slots[slot]
            if entry == 0 { break }
            let index = Int(entry - 1)
            if hashes[index] == hash && self.key(index, equals: key) { return Int32(index) }
            slot = (slot + 1) & mask
        }
        let index = hashes.count
        bytes.append(contentsOf: key)
        starts.append(bytes.count)
        hashes.append(hash)
        slots[slot] = Int32(index + 1)
        if hashes.count * 2 > slots.count {
            slots = [Int32](repeating: 0, count: slots.count * 2)
            mask = slots.count - 1
            for (index, hash) in hashes.enumerated() {
                var slot = Int(truncatingIfNeeded: hash) & mask
                while slots[slot] != 0 { slot = (slot + 1) & mask }
                slots[slot] = Int32(index + 1)
            }
        }
        return Int32(index)
    }

    /// Whether key `index` has exactly these bytes.
    func key(_ index: Int, equals key: UnsafeRawBufferPointer) -> Bool {
        let start = starts[index], end = starts[index + 1]
        guard end - start == key.count else { return false }
        return bytes.withUnsafeBytes { stored in
            key.count == 0 || memcmp(stored.baseAddress! + start, key.baseAddress!, key.count) == 0
        }
    }

    /// Key `index` as UTF-8 text.
    func string(_ index: Int) -> String {
        String(decoding: bytes[starts[index]..<starts[index + 1]], as: UTF8.self)
    }

    /// Calls `body` with key `index`'s bytes.
    func withKey<Result>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBytes { stored in
            try body(UnsafeRawBufferPointer(rebasing: stored[starts[index]..<starts[index + 1]]))
        }
    }

    /// FNV-1a over the bytes, eight at a time, then mixed.
    private static func hash(_ key: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        var offset = 0
        while offset + 8 <= key.count {
            hash = (hash ^ key.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x100_0000_01b3
            hash ^= hash >> 29
            offset += 8
        }
        while offset < key.count {
            hash = (hash ^ UInt64(key[offset])) &* 0x100_0000_01b3
            offset += 1
        }
        hash ^= hash >> 33
        hash = hash &* 0xff51_afd7_ed55_8ccd
        hash ^= hash >> 33
        return hash
    }
}
