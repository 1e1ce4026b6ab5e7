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
/// batch took gives the rows to expect, at 10 bits each with a tenth to spare (about 1% false
/// positives with 7 hashes; 8 MB for a 5.7M-row file). When more suspects come than
/// ``maximumSuspectBytes`` allows, the filter gives up (``isComplete`` false) and the merge groups
/// every key as before. A split load (``SplitLoad``) uses ``separate(kind:buffer:firstPlace:suspects:)``
/// instead, which sends the suspects' whole rows on and never gives up.
struct RepeatedKeyFilter {
    private var words: [UInt64]
    /// The filter is cut into blocks of one cache line (512 bits; fewer in a filter smaller than
    /// that), and all of a key's bits lie in one block: one memory miss a row instead of one a bit
    /// (the probes were the reader's costliest step after the CSV split, on an 8 MB filter).
    private let blockBits: UInt64
    private let blockCount: UInt64
    /// COPY text lines `kind \t event_id \t app_id`, in file order.
    private(set) var suspects: [UInt8] = []
    private(set) var suspectCount = 0
    /// False once the suspects outgrew ``maximumSuspectBytes``: the merge must then group every key.
    private(set) var isComplete = true
    let maximumSuspectBytes: Int

    static let hashCount = 7
    static let bitsPerRow = 10.0

    /// A filter of `bits` bits (1 to 2^33; one bit makes every row after the first a suspect).
    init(bits: Int, maximumSuspectBytes: Int = 16 << 20) {
        let size = min(max(bits, 1), 1 << 33)
        blockBits = size >= 512 ? 512 : UInt64(1) << UInt64(Int.bitWidth - 1 - size.leadingZeroBitCount)
        blockCount = UInt64(size) / blockBits
        words = Array(repeating: 0, count: Int((blockCount * blockBits + 63) / 64))
        self.maximumSuspectBytes = maximumSuspectBytes
    }

    /// A filter for a file of `fileBytes` (as stored) whose first batch took `batchBytes` for
    /// `batchRows` rows.
    init(fileBytes: Int64, batchBytes: Int64, batchRows: Int, maximumSuspectBytes: Int = 16 << 20) {
        let rowsPerByte = Double(max(batchRows, 1)) / Double(max(batchBytes, 1))
        let expectedRows = max(Double(fileBytes) * rowsPerByte * 1.1, Double(batchRows))
        self.init(bits: Int(min(max(expectedRows * Self.bitsPerRow, Double(1 << 16)), Double(1 << 33))),
                  maximumSuspectBytes: maximumSuspectBytes)
    }

    /// The filter's size in bytes.
    var byteCount: Int { words.count * 8 }

    /// Passes every row of `kind`'s COPY text `lines` (one row per newline-terminated line, the
    /// event id and the app id its first two fields, as every event kind's staging columns begin),
    /// noting the suspects' keys.
    mutating func add(kind: EventKind, lines: UnsafeBufferPointer<UInt8>) {
        guard isComplete else { return }
        let seed = Self.seed(kind)
        Self.forEachRow(lines) { line, key in
            guard isComplete else { return }
            if !insert(UnsafeBufferPointer(rebasing: lines[key]), seed: seed) {
                noteSuspect(kind: kind, key: UnsafeBufferPointer(rebasing: lines[key]))
            }
        }
    }

    /// Splits `kind`'s COPY text `buffer` (as for ``add(kind:lines:)``), or its binary COPY rows
    /// when `binary` (the key is then the first two fields with their lengths), in place: the rows
    /// whose key is certainly new stay, moved up over the others, which are appended to `suspects`
    /// in the same format with their place in the file (numbered from `firstPlace`) as a last
    /// column. Never gives up: every suspect row goes to `suspects` however many there are.
    /// Returns the rows left in `buffer`.
    mutating func separate(kind: EventKind, buffer: inout [UInt8], firstPlace: Int64, binary: Bool = false,
                           suspects: inout [UInt8]) -> Int {
        let seed = Self.seed(kind)
        var place = firstPlace
        var cleanRows = 0
        var kept = 0
        buffer.withUnsafeMutableBufferPointer { text in
            guard let base = text.baseAddress else { return }
            let lines = UnsafeBufferPointer(text)
            // A row is moved only towards the start, never past bytes not yet read.
            func visit(_ line: Range<Int>, _ key: Range<Int>) {
                let length = binary ? line.count : min(line.upperBound + 1, lines.count) - line.lowerBound
                if insert(UnsafeBufferPointer(rebasing: lines[key]), seed: seed) {
                    if kept != line.lowerBound { memmove(base + kept, base + line.lowerBound, length) }
                    kept += length
                    cleanRows += 1
                } else if binary {
                    BinaryCopy.appendInt16(BinaryCopy.readInt16(lines, at: line.lowerBound) + 1, to: &suspects)
                    suspects.append(contentsOf: UnsafeBufferPointer(rebasing: lines[(line.lowerBound + 2)..<line.upperBound]))
                    BinaryCopy.appendInt32(8, to: &suspects)
                    BinaryCopy.appendInt64(place, to: &suspects)
                } else {
                    suspects.append(contentsOf: UnsafeBufferPointer(rebasing: lines[line]))
                    suspects.append(0x09)
                    NumberParsing.appendInteger(place, to: &suspects)
                    suspects.append(0x0a)
                }
                place += 1
            }
            if binary {
                BinaryCopy.forEachRow(lines, visit)
            } else {
                Self.forEachRow(lines, visit)
            }
        }
        buffer.removeSubrange(kept...)
        return cleanRows
    }

    private static func seed(_ kind: EventKind) -> UInt64 { UInt64(kind.ordinal + 1) &* 0x9E37_79B9_7F4A_7C15 }

    /// Calls `body` with each line's range (without its newline) and its key's range (up to the
    /// second tab).
    private static func forEachRow(_ lines: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) -> Void) {
        guard let base = lines.baseAddress else { return }
        var start = 0
        while start < lines.count {
            let lineEnd = memchr(base + start, 0x0a, lines.count - start).map { base.distance(to: $0.assumingMemoryBound(to: UInt8.self)) } ?? lines.count
            var keyEnd = start
            var tabs = 0
            while keyEnd < lineEnd {
                if base[keyEnd] == 0x09 {
                    tabs += 1
                    if tabs == 2 { break }
                }
                keyEnd += 1
            }
            body(start..<lineEnd, start..<keyEnd)
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
        let block = Self.mix(hash).multipliedFullWidth(by: blockCount).high * blockBits
        var positions = Self.mix(hash ^ 0x9E37_79B9_7F4A_7C15)
        var seen = true
        for _ in 0..<Self.hashCount {
            let bit = block + (positions & (blockBits - 1))
            positions >>= 9
            let word = Int(bit >> 6), flag = UInt64(1) << (bit & 63)
            if words[word] & flag == 0 {
                seen = false
                words[word] |= flag
            }
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
