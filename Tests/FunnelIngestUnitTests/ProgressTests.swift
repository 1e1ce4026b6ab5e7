import Foundation
import FunnelCore
@testable import FunnelIngest
import IngestFixtures
import Testing

@Suite("Ingest progress")
struct ProgressTests {
    @Test("a file counts half when read and half when merged; the time left follows the pace so far")
    func shareAndTimeLeft() {
        let progress = IngestProgress()
        #expect(progress.progress.fractionDone == nil, "no size known yet")
        progress.setTotal(bytes: 1_000)
        progress.add(rows: 40, bytes: 400)
        #expect(progress.progress.fractionDone == 0.2)
        #expect(progress.progress.bytesLeft == 1_000)
        progress.fileDone(bytes: 400)
        #expect(progress.progress.fractionDone == 0.4)
        #expect(progress.progress.bytesLeft == 600)
        // 40% in 10 s: 15 s left at that pace.
        #expect(IngestProgress.secondsLeft(elapsed: 10, fractionDone: 0.4) == 15)
        #expect(IngestProgress.secondsLeft(elapsed: 1, fractionDone: 0.4) == nil, "too early for a pace")
        #expect(IngestProgress.secondsLeft(elapsed: 10, fractionDone: 0.005) == nil, "too little done for a pace")
        #expect(IngestProgress.line(progress.progress, totalFiles: 3, elapsed: 10)
                == "ingest: 1/3 files, 40 rows, 4 rows/s, 40%, about 15 s left")
        #expect(IngestProgress.durationText(185) == "3 min 05 s")
        #expect(IngestProgress.durationText(3_720) == "1 h 02 min")
    }

    @Test("the reader reports how far into the file as stored it has come, plain and gzip")
    func storedBytes() throws {
        let scratch = try Scratch()
        let text = "event_id,app_id,user_id,opened_at\n" + (0..<5_000).map { "o\($0),app,u\($0),2024-05-01T10:00:00Z\n" }.joined()
        let plain = try scratch.file("opens-plain.csv", text)
        for path in [plain, try scratch.gzipFile("opens-zipped.csv.gz", text)] {
            let reader = try InputFileReader(path: path, options: testOptions())
            var sink = RowSink()
            var positions: [Int64] = []
            while try reader.readBatch(maxRows: 1_000, into: &sink) {
                positions.append(sink.storedBytesConsumed)
                sink.reset()
            }
            let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).int64Value
            #expect(positions.last == size, "\(path): \(positions)")
            #expect(positions == positions.sorted(), "never goes back")
        }
    }
}
