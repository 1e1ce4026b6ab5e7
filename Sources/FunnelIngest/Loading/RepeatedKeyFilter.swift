import Foundation
import FunnelCore

/// Which staged rows of a file may repeat an earlier row's event key, found while the file is
/// read, so the bulk merge looks for duplicates among those keys only instead of grouping every
/// staged key (5.7M telemetry keys hashed with spills to disk: about 10 s of a history's import).
///
/// A Bloom filter of the keys seen so far, one per file for every event kind (the kind is part of
/// the key): a row whose key is certainly new passes; a row whose key may have been seen (a
/// repeat, or a false positive) is a *suspect*, and its key is kept as COPY text for
/// `stage_suspects`. A Bloom filter never misses a key it holds, so every later copy of an event
/// is a suspect, and the merge finds every event staged twice by grouping the staged rows whose
/// key is a suspect's. False positives only add keys to look at.
///
/// The filter is sized from the first batch: the file's size as stored against the bytes that
/// batch took gives the rows to expect, at about 12 bits each (under 1% false positives with 7
/// hashes). When more suspects come than ``maximumSuspectBytes`` allows, the filter gives up
/// (``isComplete`` false) and the merge groups every key as before.
struct RepeatedKeyFilter {
    private var words: [UInt64]
    private let mask: UInt64
    /// COPY text lines `kind \t event_id \t app_id`, in file order.
    private(set) var suspects: [UInt8] = []
    private(set) var suspectCount = 0
    /// False once the suspects outgrew ``maximumSuspectBytes``: the merge must then group every key.
    private(set) var isComplete = true
    let maximumSuspectBytes: Int

    static let hashCount = 7
    static let bitsPerRow = 12.0

    /// A filter of at least `bits` bits (rounded up to a power of two, 2^16 to 2^30).
    init(bits: Int, maximumSuspectBytes: Int = 16 << 20) {
        var size = 1 << 16
        while size < bits && size < 1 << 30 { size <<= 1 }
        words = Array(repeating: 0, count: size / 64)
        mask = UInt64(size - 1)
        self.maximumSuspectBytes = maximumSuspectBytes
    }

    /// A filter for a file of `fileBytes` (as stored) whose first batch took `batchBytes` for
    /// `batchRows` rows.
    init(fileBytes: Int64, batchBytes: Int64, batchRows: Int, maximumSuspectBytes: Int = 16 << 20) {
        let rowsPerByte = Double(max(batchRows, 1)) / Double(max(batchBytes, 1))
        let expectedRows = max(Double(fileBytes) * rowsPerByte * 1.25, Double(batchRows))
        self.init(bits: Int(min(expectedRows * Self.bitsPerRow, Double(1 << 30))), maximumSuspectBytes: maximumSuspectBytes)
    }

    /// The filter's size in bytes.
    var byteCount: Int { words.count * 8 }

    /// Passes every row of `kind`'s COPY text `lines` (one row per newline-terminated line, the
    /// event id and the app id its first two fields, as every event kind's staging columns begin).
    mutating func add(kind: EventKind, lines: UnsafeBufferPointer<UInt8>) {
        guard isComplete, let base = lines.baseAddress else { return }
        let seed = UInt64(kind.ordinal + 1) &* 0x9E37_79B9_7F4A_7C15
        var start = 0
        while start < lines.count {
            let remaining = lines.count - start
            let lineEnd = memchr(base + start, 0x0a, remaining).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? lines.count
            var keyEnd = start
            var tabs = 0
            while keyEnd < lineEnd {
                if base[keyEnd] == 0x09 {
                    tabs += 1
                    if tabs == 2 { break }
                }
                keyEnd += 1
            }
            if !insert(UnsafeBufferPointer(rebasing: lines[start..<keyEnd]), seed: seed) {
                noteSuspect(kind: kind, key: UnsafeBufferPointer(rebasing: lines[start..<keyEnd]))
                if !isComplete { return }
            }
            start = lineEnd + 1
        }
    }

    /// Sets the key's bits; false when they were all set already (the key may have been seen).
    private mutating func insert(_ key: UnsafeBufferPointer<UInt8>, seed: UInt64) -> Bool {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in key {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let first = Self.mix(hash)
        let step = Self.mix(hash ^ 0x9E37_79B9_7F4A_7C15) | 1
        var seen = true
        var position = first
        for _ in 0..<Self.hashCount {
            let bit = position & mask
            let word = Int(bit >> 6), flag = UInt64(1) << (bit & 63)
            if words[word] & flag == 0 {
                seen = false
                words[word] |= flag
            }
            position = position &+ step
        }
        return !seen
    }

    private mutating func noteSuspect(kind: EventKind, key: UnsafeBufferPointer<UInt8>) {
        suspects.append(contentsOf: kind.rawValue.utf8)
        suspects.append(0x09)
        suspects.append(contentsOf: key)
        suspects.append(0x0a)
        suspectCount += 1
        if suspects.count > maximumSuspectBytes {
            isComplete = false
            suspects = []
        }
    }

    /// MurmurHash3's 64-bit finaliser.
    private static func mix(_ value: UInt64) -> UInt64 {
        var x = value
        x ^= x >> 33
        x = x &* 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x = x &* 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return x
    }
}
