import Foundation
import FunnelCore
@testable import FunnelIngest
import IngestFixtures
import PostgresClient
import Testing
import TestSupport

/// The binary COPY rows a split load writes (``BinaryLayout``) store exactly what the COPY text
/// of the same rows stores: every kind with a binary form, edge values included (escapes,
/// non-ASCII, reals near the type's limits and too small for it, instants before 2000, counts at
/// their limits), read both ways and COPYed into twin tables on a real server.
@Suite("Binary COPY rows", .serialized)
struct BinaryCopyTests {
    /// CSV text of rows of `kind`, valid and invalid, with the values most likely to differ.
    static func sample(_ kind: EventKind) -> String {
        switch kind {
        case .ux:
            """
            event_id,app_id,user_id,session_id,occurred_at,screen,type,phase,orientation,feedback_shown,permission,guidance_shown,field,message_shown,bad_state,input_mode,kb_x,kb_y,kb_w,kb_h,focus_x,focus_y,focus_w,focus_h,action_x,action_y,action_w,action_h,caret_y,screen_w,screen_h
            x1,app,u1,s1,2024-05-01T10:00:00Z,sign\\up,screen_view,,portrait,,,,,,,en-US,,,,,,,,,16,812,398,50,,430,932
            x2,app,u1,s1,2024-05-01T10:00:01.5+05:30,écran 🙂,keyboard,did_show,landscape_left,true,camera,FALSE,email,1,0,fr-FR,0.1,-0,3.4028234e38,1.17549435e-38,1e-40,+5,-7.25,1234567,12345678,0.000001,1e10,2.5E-3,333.333,16777217,-16777216
            x3,app,u2,s2,1999-12-31T23:59:59.999999Z,home,rotation,will,portrait_upside_down,false,,true,,,true,,,,,,,,,,,,,,,,
            x4,app,u2,s2,2024-05-01T10:00:00Z,home,rotation,did_show,,,,,,,,,,,,,,,,,,,,,,,
            x5,app,u2,s2,2024-05-01T10:00:00Z,home,network_error,,,,,,,,,,1e39,,,,,,,,,,,,,,
            x6,app,u3,s3,2024-05-02T00:00:00.000001-01:00,"quoted, with comma",multi_touch,,,,,,,,,,-3.4e38,1e-45,,,,,,,,,,,,,
            """
        case .opens:
            """
            event_id,app_id,user_id,opened_at,session_seconds,device_id
            o1,app,u1,2024-05-01T10:00:00Z,2147483647,
            o2,app,u\\2,2001-01-01T00:00:00.123Z,,
            o3,app,u3,1970-01-01T00:00:00Z,0,IDFA-3
            o4,app,u4,2024-05-01T10:00:00Z,2147483648,
            o5,app,,2024-05-01T10:00:00Z,,dév\\5
            o6,app,,2024-05-01T10:00:00Z,,
            """
        case .steps:
            """
            event_id,app_id,user_id,occurred_at,step,screen
            t1,app,u1,2024-05-01T10:00:00Z,signup,
            t2,app,ü,2024-05-01T10:00:00+14:00,"a ""quoted"" step",profile\\x
            """
        case .installs:
            """
            event_id,app_id,user_id,installed_at,network,platform,country,campaign,referrer_user_id,invite_id
            i1,app,u1,2024-05-01T10:00:00Z,google,iOS,us,spring,,
            i2,app,u2,2024-05-01T10:00:00Z,organic,,,,u1,inv\\1
            i3,app,u3,2024-05-01T10:00:00Z,meta,android,XX,,,
            """
        case .retention:
            """
            event_id,app_id,user_id,day,reported_at
            r1,app,u1,0,2024-05-01T10:00:00Z
            r2,app,u1,10000,2024-05-02T10:00:00Z
            r3,app,u1,10001,2024-05-02T10:00:00Z
            """
        case .invites:
            """
            event_id,app_id,user_id,invite_id,sent_at,channel
            v1,app,u1,inv1,2024-05-01T10:00:00Z,sms
            v2,app,u1,inv2,2024-05-01T10:00:00Z,
            """
        default:
            ""
        }
    }

    /// Each kind's rows as COPY text and as binary COPY rows, with the rejects of each reading.
    static func read(_ path: String, kind: EventKind, layout: BinaryLayout?) throws -> (data: [UInt8], rejects: [RejectedRow]) {
        var options = testOptions(kind: kind)
        options.binaryLayout = layout
        let reader = try InputFileReader(path: path, options: options)
        var sink = RowSink()
        var data: [UInt8] = []
        var rejects: [RejectedRow] = []
        while try reader.readBatch(maxRows: 2, into: &sink) {
            sink.withCopyData(for: kind) { data.append(contentsOf: $0) }
            rejects += sink.rejects
            sink.reset()
        }
        return (data, rejects)
    }

    @Test("binary rows store what COPY text stores", arguments: [EventKind.ux, .opens, .steps, .installs, .retention, .invites])
    func sameRows(kind: EventKind) throws {
        let db = try LoaderFixture()
        let path = try db.file("\(kind.rawValue)-sample.csv", Self.sample(kind) + "\n")
        let layout = try #require(try SplitLoad.binaryLayout(kind, of: kind.rawTable, on: db.connection))
        let text = try Self.read(path, kind: kind, layout: nil)
        let binary = try Self.read(path, kind: kind, layout: layout)
        #expect(text.rejects == binary.rejects)
        #expect(!text.rejects.isEmpty || kind == .steps || kind == .invites, "each sample has a row to reject")
        if kind == .ux { #expect(!text.rejects.contains { $0.line == 3 }, "the row of edge values is valid") }

        let columns = kind.fieldNames.joined(separator: ", ")
        for table in ["as_text", "as_binary"] {
            try db.connection.execute("create table \(table) (like \(kind.rawTable)); alter table \(table) alter column file_id drop not null")
        }
        let textRows = try db.connection.copyIn("copy as_text (\(columns)) from stdin") { try $0.write(text.data) }
        let binaryRows = try db.connection.copyIn("copy as_binary (\(columns)) from stdin (format binary)") { writer in
            try writer.write(BinaryCopy.header)
            try writer.write(binary.data)
        }
        #expect(textRows > 0)
        #expect(binaryRows == textRows)
        let differing = try db.rows("""
            select 'text only', * from (select \(columns) from as_text except all select \(columns) from as_binary) a
            union all
            select 'binary only', * from (select \(columns) from as_binary except all select \(columns) from as_text) b
            """)
        #expect(differing.isEmpty, "\(differing)")
        if kind == .opens {
            // A row with a device id alone is its device's person's; one with neither is rejected.
            #expect(try db.rows("select event_id, user_id, device_id from as_binary where device_id is not null order by 1")
                    == [["o3", "u3", "IDFA-3"], ["o5", "device:dév\\5", "dév\\5"]])
            #expect(text.rejects.map(\.line) == [5, 7])
        }
        // Reals compared by their bits, which `=` on real would not tell apart for -0 and 0.
        if kind == .ux {
            #expect(try db.rows("select event_id, kb_y::text, float4send(kb_y)::text from as_binary where event_id = 'x2'")
                    == (try db.rows("select event_id, kb_y::text, float4send(kb_y)::text from as_text where event_id = 'x2'")))
        }
    }

    @Test("kinds written only as text have no binary layout")
    func textOnlyKinds() throws {
        let db = try LoaderFixture()
        for kind in [EventKind.purchases, .adSpend, .events] {
            #expect(try SplitLoad.binaryLayout(kind, of: kind.rawTable, on: db.connection) == nil, "\(kind)")
        }
    }
}
