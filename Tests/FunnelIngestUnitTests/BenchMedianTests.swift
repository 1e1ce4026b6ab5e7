@testable import FunnelBench
import Testing

/// The median `funnel bench ingest --history-runs` prints of its runs' ratios.
@Suite("Bench median")
struct BenchMedianTests {
    @Test("the middle value of an odd count, the mean of the two middle values of an even count, whatever the order")
    func median() {
        #expect(IngestBenchmark.median([0.48]) == 0.48)
        #expect(IngestBenchmark.median([0.54, 0.43, 0.48]) == 0.48)
        #expect(IngestBenchmark.median([0.50, 0.40, 0.60, 0.30]) == 0.45)
        #expect(IngestBenchmark.median([]) == 0)
    }
}
