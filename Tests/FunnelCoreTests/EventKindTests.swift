import FunnelCore
import Testing

@Suite("Event kinds")
struct EventKindTests {
    @Test("a file name's first word names its kind", arguments: [
        ("installs-2024-05-01.csv", EventKind.installs),
        ("opens.ndjson.gz", .opens),
        ("ad_spend_2024-05.csv", .adSpend),
        ("ad-spend.csv", .adSpend),
        ("/data/inbox/ux-day3.csv", .ux),
        ("Purchases-May.CSV", .purchases),
    ])
    func kindFromFileName(name: String, kind: EventKind) {
        #expect(EventKind(fileName: name) == kind)
    }

    @Test("a file name without a known first word has no kind", arguments: [
        "export.csv", "installsx.csv", "data/opens/other.csv", "",
    ])
    func noKindFromFileName(name: String) {
        #expect(EventKind(fileName: name) == nil)
    }

    @Test("every kind but ad_spend and currency_rates is deduplicated by event_id, and lists it first")
    func eventKindsCarryEventID() {
        let eventKinds = EventKind.allCases.filter { $0 != .adSpend && $0 != .currencyRates }
        for kind in eventKinds {
            #expect(kind.isEvent, "\(kind)")
            #expect(kind.fieldNames.prefix(3) == ["event_id", "app_id", "user_id"], "\(kind)")
            // A person is named by user_id, or by the device id that ends every event kind.
            #expect(kind.namesPeople && kind.fieldNames.last == "device_id", "\(kind)")
        }
        #expect(!EventKind.adSpend.isEvent)
        #expect(!EventKind.adSpend.fieldNames.contains("event_id"))
        #expect(!EventKind.adSpend.namesPeople && !EventKind.adSpend.fieldNames.contains("device_id"))
        #expect(!EventKind.currencyRates.isEvent)
        #expect(!EventKind.currencyRates.fieldNames.contains("event_id"))
    }

    @Test("every kind's time field is one of its required fields")
    func timeFieldIsRequired() {
        for kind in EventKind.allCases {
            let field = kind.fields.first { $0.name == kind.timeField }
            #expect(field?.isRequired == true, "\(kind)")
        }
    }
}
