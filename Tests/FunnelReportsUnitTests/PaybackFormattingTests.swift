@testable import FunnelReports
import Testing

@Suite("Payback past the projection horizon")
struct PaybackFormattingTests {
    @Test("a payback the projection does not reach reads '> D365', never a day number")
    func beyondHorizon() {
        #expect(Formatting.paybackBeyond("beyond D365") == "> D365")
        #expect(Formatting.paybackBeyond("beyond D180") == "> D180")
        #expect(Formatting.paybackBeyond("projected") == nil)
        #expect(Formatting.paybackBeyond(nil) == nil)
    }
}
