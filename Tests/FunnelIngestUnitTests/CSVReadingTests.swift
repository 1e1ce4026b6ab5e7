import Foundation
import FunnelCore
import FunnelIngest
import IngestFixtures
import Testing

@Suite("CSV reading")
struct CSVReadingTests {
    @Test("a plain installs row becomes one COPY line in column order")
    func plainRow() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs-2024-05-01.csv", installsHeader
            + "e1,app,u1,2024-05-01T10:00:00Z,facebook,iOS,de,spring,,\n")
        let result = try readAll(path)
        #expect(result.rejects == [])
        #expect(result.lines[.installs] == ["e1\tapp\tu1\t2024-05-01 10:00:00+00\tfacebook\tios\tDE\tspring\t\\N\t\\N\t\\N\t\\N\t\\N"])
        #expect(result.rowsRead == 1)
    }

    @Test("quoted fields keep embedded commas and doubled quotes")
    func quoting() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.csv", installsHeader
            + "e1,app,u1,2024-05-01T10:00:00Z,facebook,,,\"brand, \"\"search\"\"\",,\n")
        let result = try readAll(path)
        #expect(result.rejects == [])
        #expect(result.value(.installs, "campaign") == "brand, \"search\"")
    }

    @Test("an invalid record with an embedded newline costs its own lines only, and later line numbers stay right")
    func embeddedNewline() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.csv", installsHeader
            + "e1,app,u1,2024-05-01T10:00:00Z,facebook,,,\"two\nlines\",,\n"
            + "e2,app,u2,2024-05-01T10:00:00Z,facebook,,XX,,,\n"
            + "e3,app,u3,2024-05-01T10:00:00Z,facebook,,,\"one\nline\",,\n"
            + "e4,app,u4,2024-05-01T10:00:00Z,facebook,,,,,\n")
        let result = try readAll(path)
        // The newline would make campaign hold a control character, so the record is not valid
        // whole: its first line is rejected as an unclosed quote and reading resumes on the next
        // physical line, which is a fragment; the record after it starts on line 4.
        #expect(result.rejects.map(\.line) == [2, 3, 4, 5, 6])
        #expect(result.rejects[0].reason
            == "campaign: quoted field not closed on this line (the line is rejected and reading resumes on the next)")
        #expect(result.rejects[1].reason
            == "event_id: a quote inside an unquoted field (put the whole field in quotes and double the quote)")
        #expect(result.rejects[2].reason == "country: \"XX\" is not an ISO 3166-1 alpha-2 code")
        #expect(result.lines[.installs]?.count == 1)
        #expect(result.accountsForEveryLine)
    }

    @Test("CRLF line ends, a BOM and a final line without newline are read")
    func crlfAndBOM() throws {
        let scratch = try Scratch()
        let text = "\u{FEFF}" + installsHeader.replacingOccurrences(of: "\n", with: "\r\n")
            + "e1,app,u1,2024-05-01T10:00:00Z,facebook,,,,,\r\n"
            + "e2,app,u2,2024-05-01T11:00:00Z,google,,,,,"
        let result = try readAll(try scratch.file("installs.csv", text))
        #expect(result.rejects == [])
        #expect(result.lines[.installs]?.count == 2)
        #expect(result.value(.installs, "invite_id", row: 1) == "\\N")
        #expect(result.value(.installs, "network", row: 1) == "google")
    }

    @Test("header columns in another order and extra columns are matched by name")
    func columnOrder() throws {
        let scratch = try Scratch()
        let path = try scratch.file("opens.csv",
            "extra,opened_at,user_id,session_seconds,app_id,event_id\nzzz,1714557600000,u1,30,app,e1\n")
        let result = try readAll(path)
        #expect(result.rejects == [])
        #expect(result.lines[.opens] == ["e1\tapp\tu1\t2024-05-01 10:00:00+00\t30\t\\N"])
    }

    @Test("empty lines are skipped but still count as lines")
    func emptyLines() throws {
        let scratch = try Scratch()
        let path = try scratch.file("opens.csv",
            "event_id,app_id,user_id,opened_at\n\ne1,app,u1,2024-05-01T10:00:00Z\n\r\n\ne2,app,,2024-05-01T10:00:00Z\n")
        let result = try readAll(path)
        #expect(result.lines[.opens]?.count == 1)
        #expect(result.rowsRead == 2)
        #expect(result.rejects.map(\.line) == [6])
        #expect(result.rejects.first?.reason == "missing required field user_id (or device_id): a row needs the app's user id or a device id")
        #expect(result.rejects.first?.raw == "e2,app,,2024-05-01T10:00:00Z")
    }

    @Test("a record with more or fewer fields than the header is rejected")
    func raggedRecords() throws {
        let scratch = try Scratch()
        let path = try scratch.file("opens.csv",
            "event_id,app_id,user_id,opened_at\ne1,app,u1,2024-05-01T10:00:00Z,x\ne2,app\n")
        let result = try readAll(path)
        #expect(result.rejects.map(\.reason) == [
            "record has more than 4 fields, the header has 4", "record has 2 fields, the header has 4",
        ])
    }

    @Test("a header without the kind's required columns refuses the file, naming them")
    func missingColumns() throws {
        let scratch = try Scratch()
        let path = try scratch.file("installs.csv", "event_id,app_id,User_Id,installed_at\ne1,a,u,x\n")
        #expect(throws: FileRefusal.missingColumns(path: path, kind: .installs, columns: ["user_id (or device_id)", "network"])) {
            _ = try readAll(path)
        }
        let message = FileRefusal.missingColumns(path: path, kind: .installs, columns: ["user_id (or device_id)", "network"]).description
        #expect(message.contains("user_id (or device_id), network") && message.contains("installs") && message.contains(path))
        // A device_id column stands in for user_id.
        let devices = try scratch.file("opens.csv", "event_id,app_id,device_id,opened_at\ne1,a,d1,2024-05-01T10:00:00Z\n")
        #expect(try readAll(devices).lines[.opens] == ["e1\ta\tdevice:d1\t2024-05-01 10:00:00+00\t\\N\td1"])
    }

    @Test("a row with a device id alone is its device's; with neither id, or a user id in the device ids' form, it is rejected")
    func deviceRows() throws {
        let scratch = try Scratch()
        let path = try scratch.file("opens.csv", [
            "event_id,app_id,user_id,opened_at,device_id",
            "e1,app,,2024-05-01T10:00:00Z,IDFA-1",
            "e2,app,u1,2024-05-01T10:00:00Z,IDFA-1",
            "e3,app,,2024-05-01T10:00:00Z,",
            "e4,app,device:x,2024-05-01T10:00:00Z,",
            "e5,app,,2024-05-01T10:00:00Z,back\\slash",
            "e6,app,,2024-05-01T10:00:00Z,\(String(repeating: "d", count: 129))",
        ].joined(separator: "\n") + "\n")
        let result = try readAll(path)
        #expect(result.lines[.opens] == [
            "e1\tapp\tdevice:IDFA-1\t2024-05-01 10:00:00+00\t\\N\tIDFA-1",
            "e2\tapp\tu1\t2024-05-01 10:00:00+00\t\\N\tIDFA-1",
            "e5\tapp\tdevice:back\\\\slash\t2024-05-01 10:00:00+00\t\\N\tback\\\\slash",
        ])
        #expect(result.rejects.map(\.line) == [4, 5, 7])
        #expect(result.rejects.map(\.reason) == [
            "missing required field user_id (or device_id): a row needs the app's user id or a device id",
            "user_id: \"device:x\" begins with \"device:\", which funnel keeps for device-only users; give a device id in device_id instead",
            "device_id: longer than 128 bytes",
        ])
    }

    @Test("a CSV whose kind cannot be told is refused")
    func unknownKind() throws {
        let scratch = try Scratch()
        let path = try scratch.file("export.csv", "event_id,app_id,user_id,opened_at\n")
        #expect(throws: FileRefusal.unknownKind(path: path)) { _ = try readAll(path) }
        let forced = try readAll(path, options: testOptions(kind: .opens))
        #expect(forced.rowsRead == 0)
    }

    @Test("an empty file or a header alone gives no rows")
    func emptyFiles() throws {
        let scratch = try Scratch()
        #expect(try readAll(try scratch.file("installs.csv", "")).rowsRead == 0)
        #expect(try readAll(try scratch.file("installs-header-only.csv", installsHeader)).rowsRead == 0)
        #expect(try readAll(try scratch.file("opens.ndjson", "\n\n")).rowsRead == 0)
    }

    @Test("ad_spend writes '' for absent campaign, country, adset and creative and USD for absent currency")
    func adSpendDefaults() throws {
        let scratch = try Scratch()
        let path = try scratch.file("ad_spend.csv",
            "app_id,date,network,spend,campaign,country,currency,impressions,clicks\n"
            + "app,2024-05-01,facebook,120.50,,,,1000,\n"
            + "app,2024-05-02,facebook,0.000001,c1,br,eur,+7,3\n")
        let result = try readAll(path)
        #expect(result.rejects == [])
        #expect(result.lines[.adSpend] == [
            "app\t2024-05-01\tfacebook\t120.5\t\t\tUSD\t1000\t\\N\t\\N\t\t",
            "app\t2024-05-02\tfacebook\t0.000001\tc1\tBR\tEUR\t7\t3\t\\N\t\t",
        ])
        #expect(result.bounds[.adSpend]?.earliestDate == "2024-05-01")
        #expect(result.bounds[.adSpend]?.latestDate == "2024-05-02")
    }
}
