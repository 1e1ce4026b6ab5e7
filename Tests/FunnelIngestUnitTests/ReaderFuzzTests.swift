import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import Testing

/// Mutation fuzzing of the CSV and NDJSON readers, with an oracle for the promise that a malformed
/// record costs that record only.
///
/// Each case is a file of valid rows in which a few lines are mutated (quotes, commas, line
/// breaks, stray bytes, long runs, truncation), read with small random record limits and read
/// chunks so every window boundary is crossed. The oracle: every physical line is accounted for
/// (header + rows read + blank + continuation = lines); every untouched line loads exactly as it
/// did in the file before mutation; no untouched line is rejected; and no more rows load than the
/// mutated lines could hold. `make test` runs it for a few seconds; `make fuzz` (or
/// `FUNNEL_FUZZ_SECONDS=600 swift test --filter ReaderFuzzTests`) for longer. A failing case is
/// written to a file named in the failure, with its seed (`FUNNEL_FUZZ_SEED` replays it).
@Suite("Reader fuzzing")
struct ReaderFuzzTests {
    static var seconds: Double {
        Double(ProcessInfo.processInfo.environment["FUNNEL_FUZZ_SECONDS"] ?? "") ?? 4
    }

    static var firstSeed: UInt64 {
        UInt64(ProcessInfo.processInfo.environment["FUNNEL_FUZZ_SEED"] ?? "") ?? 20_261_125
    }

    /// `FUNNEL_FUZZ_TRACE=1` prints each case's seed before it runs (to find one that hangs).
    static var trace: Bool { ProcessInfo.processInfo.environment["FUNNEL_FUZZ_TRACE"] == "1" }

    @Test("mutated CSV files: every line accounted for, every untouched row loads, none is rejected")
    func csv() throws {
        try fuzz(format: .csv)
    }

    @Test("mutated NDJSON files: every line accounted for, every untouched row loads, none is rejected")
    func ndjson() throws {
        try fuzz(format: .ndjson)
    }

    private func fuzz(format: InputFormat) throws {
        let scratch = try Scratch()
        let deadline = Date().addingTimeInterval(Self.seconds)
        var seed = Self.firstSeed
        var cases = 0
        repeat {
            if Self.trace { FileHandle.standardError.write(Data("reader fuzzing (\(format)): seed \(seed)\n".utf8)) }
            var fuzzCase = FuzzCase(seed: seed, format: format)
            if let failure = try fuzzCase.check(in: scratch) {
                let kept = FileManager.default.temporaryDirectory.appendingPathComponent("funnel-fuzz-\(format)-\(seed)").path
                try? FileManager.default.removeItem(atPath: kept)
                try FileManager.default.copyItem(atPath: failure.path, toPath: kept)
                Issue.record(Comment(rawValue: "seed \(seed) (FUNNEL_FUZZ_SEED=\(seed)): \(failure.reason); input kept in \(kept)"))
                return
            }
            seed &+= 1
            cases += 1
        } while Date() < deadline
        print("reader fuzzing (\(format)): \(cases) cases from seed \(Self.firstSeed), every oracle held")
    }
}

/// One generated file, its mutation, and the oracle's verdict.
private struct FuzzCase {
    var random: FuzzRandom
    let format: InputFormat
    let seed: UInt64

    init(seed: UInt64, format: InputFormat) {
        random = FuzzRandom(seed: seed)
        self.format = format
        self.seed = seed
    }

    struct Failure {
        let path: String
        let reason: String
    }

    /// A valid row: CSV fields for installs, or an NDJSON opens object.
    mutating func validLine(_ index: Int) -> [UInt8] {
        let user = "u\(random.next() % 1000)"
        let time = "2024-05-0\(1 + random.next() % 9)T1\(random.next() % 10):0\(random.next() % 10):00Z"
        switch format {
        case .csv:
            let campaign = random.next() % 3 == 0 ? "\"spring, \"\"sale\"\"\"" : (random.next() % 2 == 0 ? "" : "c\(index)")
            return Array("e\(index),app,\(user),\(time),n\(random.next() % 4),ios,DE,\(campaign),,\n".utf8)
        case .ndjson:
            let seconds = random.next() % 2 == 0 ? "" : #","session_seconds":\#(random.next() % 600)"#
            return Array(#"{"event_id":"e\#(index)","app_id":"app","user_id":"\#(user)","opened_at":"\#(time)"\#(seconds)}"#.utf8) + [0x0a]
        }
    }

    /// One line, changed by one to three mutations; it may gain or lose line breaks.
    mutating func mutate(_ line: [UInt8]) -> [UInt8] {
        var bytes = Array(line.dropLast())
        for _ in 0..<(1 + random.next() % 3) {
            let at = bytes.isEmpty ? 0 : Int(random.next() % UInt64(bytes.count + 1))
            switch random.next() % 12 {
            case 0, 1: bytes.insert(0x22, at: at)
            case 2: bytes.insert(0x2c, at: at)
            case 3: bytes.insert(0x0a, at: at)
            case 4: bytes.insert(contentsOf: [0x0d, 0x0a], at: at)
            case 5: if at < bytes.count { bytes.remove(at: at) }
            case 6: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
            case 7: bytes.insert(contentsOf: Array("\"x\"y".utf8), at: at)
            case 8: bytes.insert(contentsOf: [UInt8](repeating: 0x61, count: Int(random.next() % 600)), at: at)
            case 9: bytes = Array(bytes.prefix(at))
            case 10: bytes.insert(contentsOf: [0x22, 0x0a, 0x22], at: at)
            default:
                if at < bytes.count { bytes[at] = [0x00, 0xff, 0x7b, 0x7d, 0x5c, 0x09][Int(random.next() % 6)] }
            }
        }
        return bytes + (random.next() % 8 == 0 ? [] : [0x0a])
    }

    mutating func check(in scratch: Scratch) throws -> Failure? {
        let name = format == .csv ? "installs-fuzz.csv" : "opens-fuzz.ndjson"
        let header: [UInt8] = format == .csv ? Array(installsHeader.utf8) : []
        let count = 5 + Int(random.next() % 60)
        var originals: [[UInt8]] = []
        for index in 0..<count { originals.append(validLine(index)) }
        var options = ReaderOptions(now: testNow)
        options.maxRecordBytes = 128 + Int(random.next() % 2048)
        options.readChunkBytes = 16 + Int(random.next() % 512)
        options.maxRawTextBytes = 64

        // The rows each valid line loads as, read from the file before mutation.
        let clean = try readAll(try scratch.file(name, bytes: header + originals.flatMap { $0 }), options: options, batch: 7)
        let kind: EventKind = format == .csv ? .installs : .opens
        let expected = clean.lines[kind] ?? []
        guard expected.count == count, clean.rejects.isEmpty else {
            return Failure(path: try scratch.file(name, bytes: header + originals.flatMap { $0 }),
                           reason: "the unmutated file did not load whole: \(clean.rejects.prefix(2))")
        }

        // Mutate a few lines (never NDJSON's first, which tells the format), and note which
        // physical lines of the new file are mutated ones.
        var bytes = header
        var line: Int64 = format == .csv ? 2 : 1
        var mutatedLines = Set<Int64>()
        var untouched: [String] = []
        var mutatedRows = 0
        for (index, original) in originals.enumerated() {
            let eligible = !(format == .ndjson && index == 0) && index < count - 1
            if eligible && random.next() % 5 == 0 {
                let changed = mutate(original)
                let breaks = changed.filter { $0 == 0x0a }.count
                let lines = max(1, breaks + (changed.last == 0x0a ? 0 : 1))
                for offset in 0..<lines { mutatedLines.insert(line + Int64(offset)) }
                mutatedRows += lines
                bytes += changed
                if changed.last != 0x0a { bytes.append(0x0a) }
                line += Int64(lines)
            } else {
                untouched.append(expected[index])
                bytes += original
                line += 1
            }
        }
        let path = try scratch.file(name, bytes: bytes)
        let result: ReadResult
        do {
            result = try readAll(path, options: options, batch: 1 + Int(random.next() % 9))
        } catch {
            return Failure(path: path, reason: "the file was refused: \(error)")
        }

        let physical = Int64(bytes.filter { $0 == 0x0a }.count) + (bytes.last == 0x0a || bytes.isEmpty ? 0 : 1)
        if result.lineCounts.lines != physical {
            return Failure(path: path, reason: "\(physical) physical lines, the reader passed \(result.lineCounts.lines)")
        }
        if !result.accountsForEveryLine {
            return Failure(path: path, reason: "lines unaccounted for: \(result.lineCounts), \(result.rowsRead) rows read")
        }
        if let reject = result.rejects.first(where: { !mutatedLines.contains($0.line) }) {
            return Failure(path: path, reason: "untouched line \(reject.line) rejected: \(reject.reason)")
        }
        var loaded: [String: Int] = [:]
        for row in result.lines[kind] ?? [] { loaded[row, default: 0] += 1 }
        for row in untouched {
            guard let left = loaded[row], left > 0 else {
                return Failure(path: path, reason: "an untouched row did not load: \(row)")
            }
            loaded[row] = left - 1
        }
        let extra = loaded.values.reduce(0, +)
        if extra > mutatedRows {
            return Failure(path: path, reason: "\(extra) rows loaded from \(mutatedRows) mutated lines")
        }
        return nil
    }
}

/// SplitMix64: a small deterministic generator, so a seed replays its case.
private struct FuzzRandom {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
