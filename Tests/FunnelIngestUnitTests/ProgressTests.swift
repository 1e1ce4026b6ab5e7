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

@Suite("Bulk merge choice")
struct BulkMergeChoiceTests {
    @Test("the bulk merge is chosen for a large file that opens a month or brings a quarter of what is stored")
    func choice() {
        // Too few rows, whatever else holds.
        #expect(!BulkMerge.isPreferred(stagedRows: 49_999, newMonths: 3, storedRows: 0, minimumRows: 50_000))
        // A first import: nothing stored, new months.
        #expect(BulkMerge.isPreferred(stagedRows: 50_000, newMonths: 3, storedRows: 0, minimumRows: 50_000))
        // A new month against a large history.
        #expect(BulkMerge.isPreferred(stagedRows: 70_000, newMonths: 1, storedRows: 5_700_000, minimumRows: 50_000))
        // A day's file into existing months of a large history: the daily merge.
        #expect(!BulkMerge.isPreferred(stagedRows: 70_000, newMonths: 0, storedRows: 5_700_000, minimumRows: 50_000))
        // A re-import into existing months: a quarter of what is stored, exactly, is enough.
        #expect(BulkMerge.isPreferred(stagedRows: 1_000_000, newMonths: 0, storedRows: 4_000_000, minimumRows: 50_000))
        #expect(!BulkMerge.isPreferred(stagedRows: 999_999, newMonths: 0, storedRows: 4_000_000, minimumRows: 50_000))
    }

    @Test("partition names and bounds follow ensure_month_partitions, December into January included")
    func partitionNames() {
        let may2024: Int32 = 2024 * 12 + 4
        #expect(BulkMerge.partitionName(.ux, month: may2024) == "raw_ux_2024_05")
        #expect(BulkMerge.partitionName(.events, month: 2023 * 12 + 11) == "raw_events_2023_12")
        #expect(BulkMerge.bounds(2023 * 12 + 11) == ("2023-12-01 00:00:00+00", "2024-01-01 00:00:00+00"))
    }
}
