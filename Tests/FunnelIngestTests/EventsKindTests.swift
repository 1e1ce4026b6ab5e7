import Foundation
import FunnelCore
@testable import FunnelIngest
import PostgresClient
import IngestFixtures
import Testing

/// The `events` kind: custom events with JSON properties, loaded exactly once, and every kind seen
/// as events through `analysis_events`.
@Suite("Events kind")
struct EventsKindTests {
    static func problem(_ text: String) -> JSONText.Problem? {
        Array(text.utf8).withUnsafeBufferPointer { JSONText.objectProblem($0) }
    }

    @Test("JSON objects jsonb accepts pass; what it would refuse is named with its position")
    func jsonText() {
        for valid in [
            "{}", " { } ", #"{"a":1,"b":[1,2,{"c":null}],"d":"x\"y","e":-1.5e3,"f":true,"g":false}"#,
            #"{"emoji":"\ud83d\ude00","slash":"a\/b","esc":"\b\f\n\r\t\\"}"#, #"{"a":{"b":{"c":[]}}}"#,
            #"{"dup":1,"dup":2}"#, #"{"big":1e1000,"small":-0.000001}"#,
        ] {
            #expect(Self.problem(valid) == nil, "\(valid)")
        }
        #expect(Self.problem("[]") == JSONText.Problem(offset: 0, expected: "a JSON object"))
        #expect(Self.problem(#"{"a":}"#) == JSONText.Problem(offset: 5, expected: "a value"))
        #expect(Self.problem(#"{"a":1,}"#) == JSONText.Problem(offset: 7, expected: "a key string"))
        #expect(Self.problem(#"{"a":1}x"#) == JSONText.Problem(offset: 7, expected: "the end of the object"))
        #expect(Self.problem(#"{"a":01}"#) == JSONText.Problem(offset: 6, expected: "',' or '}'"))
        #expect(Self.problem(#"{"a":"\u0000"}"#)?.expected == "no \\u0000 (it cannot be stored)")
        #expect(Self.problem(#"{"a":"\ud800"}"#)?.expected == "a low surrogate escape")
        #expect(Self.problem(#"{"a":"\udc00"}"#)?.expected == "a high surrogate before a low one")
        #expect(Self.problem("{\"a\":\"tab\there\"}")?.expected == "no control character inside a string")
        #expect(Self.problem(#"{"a":1e1001}"#)?.expected.hasPrefix("a number of at most") == true)
        let deep = String(repeating: "{\"a\":", count: 64) + "1" + String(repeating: "}", count: 64)
        let tooDeep = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(Self.problem(deep) == nil)
        #expect(Self.problem(tooDeep)?.expected == "at most 64 levels of nesting")
    }

    @Test("NDJSON and CSV events keep their properties as JSON text; bad ones are rejected with a reason")
    func reading() throws {
        let scratch = try Scratch()
        let ndjson = try readAll(try scratch.file("events.ndjson", [
            #"{"event_id":"1","app_id":"a","user_id":"u","event":"signup_started","occurred_at":"2024-05-01T10:00:00Z","properties":{"method":"email","step":1,"tags":["a","b"]}}"#,
            #"{"event_id":"2","app_id":"a","user_id":"u","event":"signup_completed","occurred_at":"2024-05-01T10:05:00Z"}"#,
            #"{"event_id":"3","app_id":"a","user_id":"u","event":"x","occurred_at":"2024-05-01T10:05:00Z","properties":"{\"as\":\"text\"}"}"#,
            #"{"event_id":"4","app_id":"a","user_id":"u","event":"x","occurred_at":"2024-05-01T10:05:00Z","properties":[1]}"#,
            #"{"event_id":"5","app_id":"a","user_id":{"id":1},"event":"x","occurred_at":"2024-05-01T10:05:00Z"}"#,
            #"{"event_id":"6","app_id":"a","user_id":"u","event":"x","occurred_at":"2024-05-01T10:05:00Z","extra":{"ignored":true}}"#,
            #"{"event_id":"7","app_id":"a","user_id":"u","event":"x","occurred_at":"2024-05-01T10:05:00Z","properties":7}"#,
        ].joined(separator: "\n") + "\n"))
        #expect(ndjson.lines[.events]?.count == 4)
        #expect(ndjson.value(.events, "properties", row: 0) == #"{"method":"email","step":1,"tags":["a","b"]}"#)
        #expect(ndjson.value(.events, "properties", row: 1) == "\\N")
        #expect(ndjson.value(.events, "properties", row: 2) == #"{"as":"text"}"#)
        #expect(ndjson.rejects.map(\.reason) == [
            "properties: not a JSON object: expected a JSON object at character 1",
            "user_id: nested objects and arrays are not supported",
            "properties: expected a JSON object, not a number",
        ])

        let csv = try readAll(try scratch.file("events.csv", "event_id,app_id,user_id,event,occurred_at,properties\n"
            + "1,a,u,purchase_tapped,2024-05-01T10:00:00Z,\"{\"\"sku\"\":\"\"gems\\\\100\"\",\"\"price\"\":4.99}\"\n"
            + "2,a,u,purchase_tapped,2024-05-01T10:00:00Z,\n"
            + "3,a,u,purchase_tapped,2024-05-01T10:00:00Z,\"{\"\"sku\"\":}\"\n"))
        #expect(csv.lines[.events]?.count == 2)
        // COPY text doubles the backslash of the JSON escape; the server reads it back as one.
        #expect(csv.value(.events, "properties") == #"{"sku":"gems\\\\100","price":4.99}"#)
        #expect(csv.rejects.map(\.reason) == ["properties: not a JSON object: expected a value at character 8"])
    }

    /// Properties nested `levels` deep: `{"a":{"a":...1...}}` with `levels` objects.
    static func nested(_ levels: Int) -> String {
        String(repeating: "{\"a\":", count: levels) + "1" + String(repeating: "}", count: levels)
    }

    @Test("the nesting limit counts the properties object's own levels, the same in NDJSON and CSV: 64 load, 65 are rejected")
    func nestingLimitSameInBothFormats() throws {
        let scratch = try Scratch()
        let ndjson = try readAll(try scratch.file("events.ndjson", [64, 65].enumerated().map { row, levels in
            #"{"event_id":"\#(row)","app_id":"a","user_id":"u","event":"x","occurred_at":"2024-05-01T10:00:00Z","properties":\#(Self.nested(levels))}"#
        }.joined(separator: "\n") + "\n"))
        let csvField = { (levels: Int) in "\"" + Self.nested(levels).replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        let csv = try readAll(try scratch.file("events.csv", "event_id,app_id,user_id,event,occurred_at,properties\n"
            + "0,a,u,x,2024-05-01T10:00:00Z,\(csvField(64))\n" + "1,a,u,x,2024-05-01T10:00:00Z,\(csvField(65))\n"))
        for (format, result) in [("NDJSON", ndjson), ("CSV", csv)] {
            #expect(result.lines[.events]?.count == 1, "\(format)")
            #expect(result.value(.events, "event_id") == "0", "\(format)")
            #expect(result.value(.events, "properties") == Self.nested(64), "\(format)")
            #expect(result.rejects.count == 1, "\(format)")
            #expect(result.rejects.first?.reason.contains("at most 64 levels of nesting") == true,
                    "\(format): \(result.rejects.map(\.reason))")
        }
    }

    @Test("CSV properties may span lines inside their quoted field: line breaks between JSON tokens load, one inside a JSON string rejects its first line")
    func propertiesSpanningLines() throws {
        let scratch = try Scratch()
        let csv = try readAll(try scratch.file("events.csv", "event_id,app_id,user_id,event,occurred_at,properties\n"
            + "1,a,u,x,2024-05-01T10:00:00Z,\"{\n  \"\"method\"\": \"\"email\"\",\r\n  \"\"step\"\": 2\n}\"\n"
            + "2,a,u,x,2024-05-01T10:00:00Z,\"{\"\"note\"\": \"\"two\nlines\"\"}\"\n"
            + "3,a,u,x,2024-05-01T10:00:00Z,\n"))
        #expect(csv.lines[.events]?.count == 2)
        #expect(csv.columns(.events, row: 0)[0] == "1")
        #expect(csv.value(.events, "properties", row: 0) == "{\\n  \"method\": \"email\",\\r\\n  \"step\": 2\\n}")
        // Record 2 is not valid whole (a raw line break in a JSON string): its first line is
        // rejected, and its second line is read as a record of its own.
        #expect(csv.rejects.map(\.line) == [6, 7])
        #expect(csv.rejects.first?.reason.hasPrefix("properties: quoted field not closed on this line") == true,
                "\(csv.rejects.map(\.reason))")
        #expect(csv.columns(.events, row: 1)[0] == "3")
        #expect(csv.accountsForEveryLine)
    }

    @Test("events load exactly once, properties are queryable, and every kind reads as events")
    func loading() throws {
        let db = try LoaderFixture()
        let first = try db.file("events-1.ndjson", [
            #"{"event_id":"e1","app_id":"a","user_id":"u1","event":"signup_started","occurred_at":"2024-05-01T10:00:00Z","properties":{"method":"email","path":"a\\b"}}"#,
            #"{"event_id":"e2","app_id":"a","user_id":"u1","event":"signup_completed","occurred_at":"2024-05-01T10:05:00Z","properties":{"method":"email"}}"#,
        ].joined(separator: "\n") + "\n")
        let second = try db.file("events-2.csv", "event_id,app_id,user_id,event,occurred_at,properties\n"
            + "e2,a,u1,signup_completed,2024-05-01T10:05:00Z,\n"
            + "e3,a,u2,signup_started,2024-06-02T09:00:00Z,\"{\"\"method\"\":\"\"apple\"\"}\"\n")
        let installs = try db.file("installs.csv", installsHeader + "i1,a,u1,2024-05-01T09:00:00Z,adnova,ios,DE,,,\n")
        let steps = try db.file("steps.csv", "event_id,app_id,user_id,occurred_at,step,screen\ns1,a,u1,2024-05-01T09:01:00Z,onboarding_complete,welcome\n")
        let reports = try db.ingest([first, second, installs, steps])
        #expect(reports.map(\.counts.rowsLoaded) == [2, 1, 1, 1])
        #expect(reports.map(\.counts.duplicates) == [0, 1, 0, 0])
        #expect(try db.rows("select event_id, event, properties->>'method', properties->>'path' from raw_events order by 1") == [
            ["e1", "signup_started", "email", "a\\b"], ["e2", "signup_completed", "email", "∅"], ["e3", "signup_started", "apple", "∅"],
        ])
        #expect(try db.count("select count(*) from raw_events_keys") == 3)
        #expect(try db.rows("""
            select kind, event, user_id, properties::text from analysis_events order by occurred_at, event
            """) == [
            ["installs", "install", "u1", #"{"country": "DE", "network": "adnova", "platform": "ios"}"#],
            ["steps", "onboarding_complete", "u1", #"{"screen": "welcome"}"#],
            ["events", "signup_started", "u1", #"{"path": "a\\b", "method": "email"}"#],
            ["events", "signup_completed", "u1", #"{"method": "email"}"#],
            ["events", "signup_started", "u2", #"{"method": "apple"}"#],
        ])
    }

    @Test("what the checker accepts PostgreSQL's jsonb accepts, and what it refuses jsonb refuses (mutated objects)")
    func agreesWithPostgres() throws {
        let db = try LoaderFixture()
        var state: UInt64 = 7
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        let seeds = [
            #"{"a":1,"b":[true,false,null],"c":{"d":"e\"f"},"g":-1.25e-3}"#,
            #"{"u":"\u00e9\ud83d\ude00","n":0,"s":"\\\/"}"#,
        ]
        let pieces = ["\"", "\\", "\\u", "\\ud800", "\\u0000", "{", "}", "[", "]", ":", ",", "1", "-", ".", "e", "E+",
                      "0", "00", "t", "null", " ", "\t", "x", "1e999", "1e1001"]
        try db.connection.execute("""
            create function pg_temp.is_json_object(t text) returns boolean language plpgsql as $$
            begin return jsonb_typeof(t::jsonb) = 'object'; exception when others then return false; end $$
            """)
        var agreed = 0
        for round in 0..<1500 {
            var text = Array(seeds[round % seeds.count].utf8)
            for _ in 0..<(1 + next() % 3) {
                let at = next() % (text.count + 1)
                if next() % 3 == 0, at < text.count {
                    text.remove(at: at)
                } else {
                    text.insert(contentsOf: Array(pieces[next() % pieces.count].utf8), at: at)
                }
            }
            let string = String(decoding: text, as: UTF8.self)
            let ours = text.withUnsafeBufferPointer { JSONText.objectProblem($0) } == nil
            let theirs = try db.connection.query(
                "select pg_temp.is_json_object($1)", [string]
            ).scalar(Bool?.self) ?? false
            #expect(ours == theirs, "\(string): ours \(ours), PostgreSQL \(theirs)")
            if ours != theirs { break }
            agreed += 1
        }
        #expect(agreed == 1500)
    }
}
