import FunnelCore
import FunnelIngest
import IngestFixtures
import Testing

@Suite("Field validation")
struct ValidationTests {
    @Test("every kind's valid sample row loads")
    func validRowsLoad() throws {
        for kind in EventKind.allCases {
            let result = try outcome(kind)
            #expect(result.reason == nil, "\(kind): \(result)")
        }
    }

    @Test("identifiers: required, at most 128 bytes, valid UTF-8, no control characters")
    func identifiers() throws {
        let withoutNetwork = #"{"event_id":"e","app_id":"a","user_id":"u","installed_at":"2024-05-01T10:00:00Z"}"#
        #expect(try jsonOutcome(.installs, withoutNetwork).reason == "missing required field network")
        #expect(try outcome(.installs, ["network": ""]).reason == "missing required field network")
        #expect(try outcome(.installs, ["user_id": String(repeating: "x", count: 128)])["user_id"]?.count == 128)
        #expect(try outcome(.installs, ["user_id": String(repeating: "x", count: 129)]).reason
            == "user_id: longer than 128 bytes")
        #expect(try outcome(.installs, ["user_id": "a\tb"]).reason == "user_id: \"a\tb\" contains a control character")
        #expect(try outcome(.installs, ["user_id": "a\u{85}b"]).reason?.hasSuffix("contains a control character") == true)
        #expect(try outcome(.installs, ["user_id": "Jürgen-北京"])["user_id"] == "Jürgen-北京")
        #expect(try outcome(.installs, ["campaign": "back\\slash"])["campaign"] == "back\\\\slash")
    }

    @Test("timestamps need a zone unless one is assumed")
    func timeZones() throws {
        #expect(try outcome(.installs, ["installed_at": "2024-05-01 10:00:00"]).reason
            == "installed_at: \"2024-05-01 10:00:00\" has no time zone (use RFC 3339 like 2024-05-01T10:00:00Z, or pass --assume-tz)")
        #expect(try outcome(.installs, ["installed_at": "2024-05-01 10:00:00"], assumeTimeZone: "+02:00")["installed_at"]
            == "2024-05-01 08:00:00+00")
        // Berlin is UTC+2 in May (summer time) and UTC+1 in January.
        #expect(try outcome(.installs, ["installed_at": "2024-05-01T10:00:00"], assumeTimeZone: "Europe/Berlin")["installed_at"]
            == "2024-05-01 08:00:00+00")
        #expect(try outcome(.installs, ["installed_at": "2024-01-15 10:00:00.5"], assumeTimeZone: "Europe/Berlin")["installed_at"]
            == "2024-01-15 09:00:00.500000+00")
        #expect(throws: ReaderOptionError.unknownTimeZone("Mars/Olympus")) {
            _ = try outcome(.installs, assumeTimeZone: "Mars/Olympus")
        }
    }

    @Test("epoch milliseconds and zone offsets normalise to the same UTC instant")
    func sameInstant() throws {
        let spellings = [
            "2024-05-01T10:00:00Z", "2024-05-01T12:00:00+02:00", "2024-05-01 05:30:00-04:30",
            "2024-05-01t10:00:00z", "1714557600000", "2024-05-01T12:00:00+0200", "2024-05-01T12:00:00.000+02",
        ]
        for spelling in spellings {
            #expect(try outcome(.opens, ["opened_at": spelling])["opened_at"] == "2024-05-01 10:00:00+00", "\(spelling)")
        }
        #expect(try jsonOutcome(.opens, #"{"event_id":"e","app_id":"a","user_id":"u","opened_at":1714557600123}"#)["opened_at"]
            == "2024-05-01 10:00:00.123000+00")
        #expect(try outcome(.opens, ["opened_at": "2024-05-01T10:00:00.1234567Z"])["opened_at"]
            == "2024-05-01 10:00:00.123456+00")
    }

    @Test("timestamps must be real, sane instants")
    func timestampRules() throws {
        #expect(try outcome(.opens, ["opened_at": "yesterday"]).reason
            == "opened_at: \"yesterday\" is not a timestamp (use RFC 3339 like 2024-05-01T10:00:00Z or Unix epoch milliseconds)")
        #expect(try outcome(.opens, ["opened_at": "2024-02-30T10:00:00Z"]).reason
            == "opened_at: \"2024-02-30T10:00:00Z\" is not a valid date and time")
        #expect(try outcome(.opens, ["opened_at": "2024-02-29T23:59:59Z"]).reason == nil)
        #expect(try outcome(.opens, ["opened_at": "1999-12-31T23:59:59Z"]).reason == nil)
        #expect(try outcome(.opens, ["opened_at": "1970-01-01T00:00:00Z"]).reason == nil)
        #expect(try outcome(.opens, ["opened_at": "1969-12-31T23:59:59Z"]).reason
            == "opened_at: \"1969-12-31T23:59:59Z\" is before 1970-01-01 (the Unix epoch, the earliest date funnel accepts)")
        #expect(try outcome(.opens, ["opened_at": "504921600000"]).reason == nil, "1986-01-01 in epoch milliseconds")
        #expect(try outcome(.opens, ["opened_at": "2024-06-02T23:00:00Z"]).reason == nil)
        #expect(try outcome(.opens, ["opened_at": "1714557600"]).reason
            == "opened_at: \"1714557600\" looks like Unix epoch seconds; epoch timestamps must be in milliseconds")
        #expect(try outcome(.opens, ["opened_at": "2024-06-03T00:00:01Z"]).reason
            == "opened_at: \"2024-06-03T00:00:01Z\" is more than 2 days in the future")
        #expect(try outcome(.opens, ["opened_at": "2024-05-01T10:00:00+25:00"]).reason
            == "opened_at: \"2024-05-01T10:00:00+25:00\" is not a valid date and time")
        #expect(try outcome(.opens, ["opened_at": "2024-05-01T10:00:00 UTC"]).reason?.contains("is not a timestamp") == true)
    }

    @Test("dates are YYYY-MM-DD within the sane range")
    func dates() throws {
        #expect(try outcome(.adSpend, ["date": "2024/05/01"]).reason == "date: \"2024/05/01\" is not a date (use YYYY-MM-DD)")
        #expect(try outcome(.adSpend, ["date": "1999-01-01"])["date"] == "1999-01-01")
        #expect(try outcome(.adSpend, ["date": "1969-12-31"]).reason
            == "date: \"1969-12-31\" is before 1970-01-01 (the Unix epoch, the earliest date funnel accepts)")
        #expect(try outcome(.adSpend, ["date": "2024-05-01"])["date"] == "2024-05-01")
    }

    @Test("counts are non-negative whole numbers within their limits")
    func counts() throws {
        #expect(try outcome(.retention, ["day": "-1"]).reason == "day: \"-1\" is negative")
        #expect(try outcome(.retention, ["day": "1.5"]).reason == "day: \"1.5\" is not a whole number")
        #expect(try outcome(.retention, ["day": "10001"]).reason == "day: \"10001\" is larger than 10000")
        #expect(try outcome(.retention, ["day": "007"])["day"] == "7")
        #expect(try outcome(.opens, ["session_seconds": "2147483648"]).reason
            == "session_seconds: \"2147483648\" is larger than 2147483647")
        #expect(try outcome(.adSpend, ["impressions": "abc"]).reason == "impressions: \"abc\" is not a whole number")
        #expect(try jsonOutcome(.opens, #"{"event_id":"e","app_id":"a","user_id":"u","opened_at":"2024-05-01T10:00:00Z","session_seconds":30.0}"#)["session_seconds"] == "30")
    }

    @Test("an exchange rate is a decimal above 0 with at most 10 decimal places")
    func rate() throws {
        #expect(try outcome(.currencyRates, ["usd_per_unit": "0.0065271534"])["usd_per_unit"] == "0.0065271534")
        #expect(try outcome(.currencyRates, ["usd_per_unit": "1.50"])["usd_per_unit"] == "1.5")
        #expect(try outcome(.currencyRates, ["usd_per_unit": "0"]).reason == "usd_per_unit: \"0\" is not above 0")
        #expect(try outcome(.currencyRates, ["usd_per_unit": "-1"]).reason == "usd_per_unit: \"-1\" is negative")
        #expect(try outcome(.currencyRates, ["usd_per_unit": "1e-11"]).reason
            == "usd_per_unit: \"1e-11\" has more than 10 decimal places")
        #expect(try outcome(.currencyRates, ["usd_per_unit": "1000000000"]).reason
            == "usd_per_unit: \"1000000000\" is larger than 999999999.9999999999")
        #expect(try outcome(.currencyRates, ["currency": "XYZ"]).reason == "currency: \"XYZ\" is not an ISO 4217 currency code")
        #expect(try outcome(.currencyRates, ["date": "2024-02-30"]).reason == "date: \"2024-02-30\" is not a date (use YYYY-MM-DD)")
    }

    @Test("money is a decimal with at most 6 decimal places, below 10^12; non-negative but a purchase's revenue (a refund)")
    func money() throws {
        #expect(try outcome(.adSpend, ["spend": "-3.50"]).reason == "spend: \"-3.50\" is negative")
        #expect(try outcome(.purchases, ["revenue": "-3.50"])["revenue"] == "-3.5")
        #expect(try outcome(.purchases, ["revenue": "-1000000000000"]).reason
            == "revenue: \"-1000000000000\" is larger than 999999999999.999999")
        #expect(try outcome(.purchases, ["revenue": "1.1234567"]).reason == "revenue: \"1.1234567\" has more than 6 decimal places")
        #expect(try outcome(.purchases, ["revenue": "1.1234560"])["revenue"] == "1.123456")
        #expect(try outcome(.purchases, ["revenue": "abc"]).reason == "revenue: \"abc\" is not a decimal number")
        #expect(try outcome(.purchases, ["revenue": "NaN"]).reason == "revenue: \"NaN\" is not a finite decimal number")
        #expect(try outcome(.purchases, ["revenue": "1000000000000"]).reason
            == "revenue: \"1000000000000\" is larger than 999999999999.999999")
        #expect(try outcome(.purchases, ["revenue": "999999999999.999999"])["revenue"] == "999999999999.999999")
        #expect(try outcome(.purchases, ["revenue": "0012.50"])["revenue"] == "12.5")
        #expect(try outcome(.purchases, ["revenue": "-0"])["revenue"] == "0")
        #expect(try jsonOutcome(.purchases, #"{"event_id":"e","app_id":"a","user_id":"u","purchased_at":"2024-05-01T10:00:00Z","revenue":2.5e-3}"#)["revenue"] == "0.0025")
    }

    @Test("reals are finite decimals that fit a float")
    func reals() throws {
        #expect(try outcome(.ux, ["kb_y": "512.5"])["kb_y"] == "512.5")
        #expect(try outcome(.ux, ["kb_y": "-3e2"])["kb_y"] == "-3e2")
        #expect(try outcome(.ux, ["kb_y": "Infinity"]).reason == "kb_y: \"Infinity\" is not a finite decimal number")
        #expect(try outcome(.ux, ["kb_y": "1e39"]).reason == "kb_y: \"1e39\" is out of range")
        #expect(try outcome(.ux, ["kb_y": "3.5e38"]).reason == "kb_y: \"3.5e38\" is out of range")
        #expect(try outcome(.ux, ["kb_y": "3.4e38"]).reason == nil)
        #expect(try outcome(.ux, ["kb_y": "1e-50"])["kb_y"] == "0")
        #expect(try outcome(.ux, ["kb_y": "12px"]).reason == "kb_y: \"12px\" is not a decimal number")
    }

    @Test("booleans are true/false/1/0 in any case, or JSON booleans")
    func booleans() throws {
        for (text, stored) in [("true", "t"), ("FALSE", "f"), ("1", "t"), ("0", "f"), ("True", "t")] {
            #expect(try outcome(.ux, ["feedback_shown": text])["feedback_shown"] == stored)
        }
        #expect(try outcome(.ux, ["feedback_shown": "yes"]).reason
            == "feedback_shown: \"yes\" is not a boolean (use true/false or 1/0)")
        let json = #"{"event_id":"e","app_id":"a","user_id":"u","session_id":"s","occurred_at":"2024-05-01T10:00:00Z","screen":"x","type":"network_error","feedback_shown":false}"#
        #expect(try jsonOutcome(.ux, json)["feedback_shown"] == "f")
    }

    @Test("countries are ISO 3166-1 alpha-2, normalised to upper case")
    func countries() throws {
        #expect(try outcome(.installs, ["country": "de"])["country"] == "DE")
        #expect(try outcome(.installs, ["country": "XX"]).reason == "country: \"XX\" is not an ISO 3166-1 alpha-2 code")
        #expect(try outcome(.installs, ["country": "DEU"]).reason == "country: \"DEU\" is not an ISO 3166-1 alpha-2 code")
        #expect(try outcome(.installs, ["country": "UK"]).reason != nil)
    }

    @Test("currencies are ISO 4217, normalised to upper case, USD when absent")
    func currencies() throws {
        #expect(try outcome(.purchases, ["currency": "eur"])["currency"] == "EUR")
        #expect(try outcome(.purchases)["currency"] == "USD")
        #expect(try outcome(.purchases, ["currency": "ABC"]).reason == "currency: \"ABC\" is not an ISO 4217 currency code")
        #expect(try outcome(.purchases, ["currency": "€"]).reason != nil)
    }

    @Test("closed sets are case-insensitive and stored in lower case")
    func oneOf() throws {
        #expect(try outcome(.installs, ["platform": "iOS"])["platform"] == "ios")
        #expect(try outcome(.installs, ["platform": "web"]).reason == "platform: \"web\" is not one of ios, android")
        #expect(try outcome(.ux, ["type": "swipe"]).reason
            == "type: \"swipe\" is not one of keyboard, rotation, network_error, permission_denied, validation_error, multi_touch, screen_view")
    }

    @Test("a ux phase must belong to its type")
    func uxPhase() throws {
        #expect(try outcome(.ux, ["type": "keyboard", "phase": "Will_Show"])["phase"] == "will_show")
        #expect(try outcome(.ux, ["type": "rotation", "phase": "did"])["phase"] == "did")
        #expect(try outcome(.ux, ["type": "keyboard", "phase": "will"]).reason
            == "phase: \"will\" is not a phase of type keyboard (will_show, did_show, will_hide, did_hide, will_change_frame, did_change_frame)")
        #expect(try outcome(.ux, ["type": "rotation", "phase": "did_show"]).reason
            == "phase: \"did_show\" is not a phase of type rotation (will, did)")
        #expect(try outcome(.ux, ["type": "screen_view", "phase": "did"]).reason
            == "phase: \"did\" is given for type screen_view, which has no phases")
        #expect(try outcome(.ux, ["type": "keyboard"]).reason == nil)
    }

    @Test("JSON values of the wrong type are rejected with what was expected")
    func jsonTypes() throws {
        let line = #"{"event_id":"e","app_id":"a","user_id":true,"opened_at":"2024-05-01T10:00:00Z"}"#
        #expect(try jsonOutcome(.opens, line).reason == "user_id: expected a string, not a boolean")
        let numeric = #"{"event_id":12345,"app_id":"a","user_id":"u","opened_at":"2024-05-01T10:00:00Z"}"#
        #expect(try jsonOutcome(.opens, numeric)["event_id"] == "12345")
        let nulls = #"{"event_id":"e","app_id":"a","user_id":"u","opened_at":"2024-05-01T10:00:00Z","session_seconds":null}"#
        #expect(try jsonOutcome(.opens, nulls)["session_seconds"] == "\\N")
        let nested = #"{"event_id":"e","app_id":"a","user_id":"u","opened_at":"2024-05-01T10:00:00Z","extra":{"a":1}}"#
        #expect(try jsonOutcome(.opens, nested).reason == nil)
        let nestedField = #"{"event_id":"e","app_id":"a","user_id":"u","opened_at":"2024-05-01T10:00:00Z","session_seconds":[1]}"#
        #expect(try jsonOutcome(.opens, nestedField).reason == "session_seconds: nested objects and arrays are not supported")
        let escaped = #"{"event_id":"e\u00e9\ud83d\ude00","app_id":"a\/b","user_id":"u","opened_at":"2024-05-01T10:00:00Z"}"#
        #expect(try jsonOutcome(.opens, escaped)["event_id"] == "eé😀")
        #expect(try jsonOutcome(.opens, escaped)["app_id"] == "a/b")
        #expect(try jsonOutcome(.opens, #"{"event_id":"e","app_id":"a" "user_id":"u"}"#).reason
            == "invalid JSON at column 30: expected ',' or '}'")
    }
}
