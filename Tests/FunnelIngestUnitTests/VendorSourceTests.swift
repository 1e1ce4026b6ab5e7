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
}
