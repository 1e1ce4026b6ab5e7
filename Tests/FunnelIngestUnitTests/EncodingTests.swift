@testable import FunnelIngest
import FunnelCalendar
import FunnelCore
import Testing

@Suite("COPY encoding and time arithmetic")
struct EncodingTests {
    private func escaped(_ text: String) -> String {
        var out: [UInt8] = []
        Array(text.utf8).withUnsafeBufferPointer { CopyText.appendEscaped($0, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    @Test("COPY text escapes backslash, tab, newline and carriage return")
    func escaping() {
        #expect(escaped("a\tb\nc\rd\\e") == #"a\tb\nc\rd\\e"#)
        #expect(escaped("plain ü") == "plain ü")
    }

    @Test("days from civil and back agree over four centuries")
    func civilRoundTrip() {
        for days in stride(from: -200_000, through: 200_000, by: 37) {
            let (y, m, d) = CivilTime.civil(fromDays: days)
            #expect(CivilTime.days(year: y, month: m, day: d) == days)
        }
        #expect(CivilTime.days(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test("timestamps are written as UTC with microseconds only when present")
    func timestampWriting() {
        var out: [UInt8] = []
        TimestampWriter.appendTimestamp(micros: 1_714_557_600_000_001, to: &out)
        out.append(0x20)
        TimestampWriter.appendTimestamp(micros: 951_782_400_000_000, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == "2024-05-01 10:00:00.000001+00 2000-02-29 00:00:00+00")
    }

    @Test("the country and currency tables hold the official code lists")
    func codeLists() {
        #expect(Set(ISOCodes.countryList).count == 249)
        #expect(ISOCodes.countries.filter { $0 }.count == 249)
        #expect(ISOCodes.currencyList.count == Set(ISOCodes.currencyList).count)
        #expect(ISOCodes.currencies.filter { $0 }.count == ISOCodes.currencyList.count)
        for code in ReferenceRates.usdPerUnit.keys {
            #expect(ISOCodes.currencyList.contains(code))
        }
    }

    @Test("assumed zones parse offsets and IANA names and refuse the rest")
    func assumedZones() {
        #expect(AssumedTimeZone("+02:00") != nil)
        #expect(AssumedTimeZone("-0530") != nil)
        #expect(AssumedTimeZone("Europe/Berlin") != nil)
        #expect(AssumedTimeZone("UTC") != nil)
        #expect(AssumedTimeZone("+25:00") == nil)
        #expect(AssumedTimeZone("Nowhere/Else") == nil)
    }
}
