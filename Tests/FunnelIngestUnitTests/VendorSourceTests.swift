import FunnelCore
@testable import FunnelIngest
import Testing

/// The vendor list the configuration accepts and the translators ingest has stay one list.
@Suite("Vendor sources")
struct VendorSourceTests {
    @Test("[[ingest.files]] source accepts exactly the vendors ingest translates")
    func namesAgree() {
        #expect(VendorSource.allCases.map(\.rawValue) == IngestSettings.vendorSources)
    }

    @Test("an AppsFlyer header is told from its columns; funnel's own installs header is not")
    func detection() {
        #expect(VendorSource.detect(csvColumns: ["Install Time", "Event Time", "Event Name", "AppsFlyer ID", "App ID"]) == .appsflyer)
        #expect(VendorSource.detect(csvColumns: ["event_id", "app_id", "user_id", "installed_at", "network"]) == nil)
        #expect(VendorSource.detect(csvColumns: ["{activity_kind}", "{created_at}", "{adid}", "{app_id}"]) == .adjust)
        #expect(VendorSource.detect(csvColumns: ["activity_kind", "created_at", "adid", "app_token"]) == .adjust)
    }

    @Test("vendor countries become ISO codes: any case, AppsFlyer's UK, English names; minor units divided by the currency's")
    func countriesAndMinorUnits() {
        func country(_ text: String) -> String {
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { String(decoding: VendorBytes.country($0), as: UTF8.self) }
        }
        #expect(country("us") == "US")
        #expect(country("UK") == "GB")
        #expect(country("Germany") == "DE")
        #expect(country("United States of America") == "US")
        #expect(country("Atlantis") == "Atlantis", "an unknown name is left for the validator to reject")
        func minor(_ amount: String, _ currency: String) -> String {
            let a = Array(amount.utf8), c = Array(currency.utf8)
            return a.withUnsafeBufferPointer { a in
                c.withUnsafeBufferPointer { String(decoding: VendorBytes.fromMinorUnits(a, currency: $0), as: UTF8.self) }
            }
        }
        #expect(minor("1999", "USD") == "19.99")
        #expect(minor("5", "eur") == "0.05")
        #expect(minor("-499", "USD") == "-4.99")
        #expect(minor("500", "JPY") == "500")
        #expect(minor("1999", "KWD") == "1.999")
        #expect(minor("19.99", "USD") == "19.99", "not a whole number: as written")
    }
}
