import Foundation
import FunnelIngest
import FunnelCore
public import Logging
public import PostgresClient

/// `funnel bench ingest --vendor appsflyer`: the same rows imported twice on fresh databases,
/// once as the vendor's export (`--source`: translated while read) and once as the funnel NDJSON
/// the translation gives (the plain ingest), by the same ingest run, with rows/s of both. An
/// import must keep at least 0.8x the plain ingest's rows/s (docs/imports.md).
public enum VendorIngestBenchmark {
    /// One pair of loads.
    public struct Result: Sendable {
        public var rows: Int
        public var vendorBytes: Int64
        public var plainSeconds: Double
        public var vendorSeconds: Double
        public var plainLoaded: Int
        public var vendorLoaded: Int

        public var plainRowsPerSecond: Double { Double(rows) / max(plainSeconds, 1e-9) }
        public var vendorRowsPerSecond: Double { Double(rows) / max(vendorSeconds, 1e-9) }
        public var ratio: Double { vendorRowsPerSecond / max(plainRowsPerSecond, 1e-9) }
    }

    /// Writes an AppsFlyer raw-data export of `rows` rows (a tenth installs, a tenth purchases,
    /// the rest in-app events with an Event Value), and its funnel NDJSON translation.
    public static func prepare(rows: Int, directory: String) throws -> (vendor: String, plain: String) {
        let vendor = directory + "/id1234567_raw-data_bench.csv"
        let plain = directory + "/appsflyer-translated.ndjson"
        let columns = [
            "Attributed Touch Type", "Attributed Touch Time", "Install Time", "Event Time", "Event Name", "Event Value",
            "Event Revenue", "Event Revenue Currency", "Event Revenue USD", "Media Source", "Channel", "Campaign",
            "Campaign ID", "Adset", "Adset ID", "Ad", "Ad ID", "Country Code", "City", "IP", "Language", "AppsFlyer ID",
            "Advertising ID", "IDFV", "Customer User ID", "Platform", "Device Type", "OS Version", "App Version",
            "SDK Version", "App ID", "App Name", "Is Retargeting", "Is Primary Attribution", "User Agent",
        ]
        let networks = ["Facebook Ads", "googleadwords_int", "organic", "tiktokglobal_int"]
        let base = 1_714_521_600 // 2024-05-01 00:00:00 UTC
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return try write(rows: rows, header: columns.joined(separator: ",") + "\n", vendor: vendor, plain: plain,
                         source: .appsflyer) { row in
            let person = row / 10
            let network = networks[person % networks.count]
            let installed = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base + (person % 2_000_000) * 1)))
            let at = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base + (person % 2_000_000) + (row % 10) * 3600)))
            let kind = row % 10
            let name = kind == 0 ? "install" : kind == 5 ? "af_purchase" : "af_level_achieved"
            let value = kind == 5 ? "\"{\"\"af_revenue\"\":\"\"1.99\"\",\"\"af_content_id\"\":\"\"gems\"\"}\""
                : kind == 0 ? "" : "\"{\"\"af_level\"\":\"\"\(row % 50)\"\"}\""
            let fields: [String] = [
                "click", installed, installed, at, name, value, kind == 5 ? "1.99" : "", kind == 5 ? "USD" : "", kind == 5 ? "1.99" : "",
                network, "", "spring_\(person % 7)", "c\(person % 7)", "adset_\(person % 13)", "as\(person % 13)", "ad_\(person % 17)",
                "ad\(person % 17)", ["US", "DE", "GB", "JP"][person % 4], "Berlin", "10.0.0.1", "en-US", "af-\(person)",
                "", "IDFV-\(person)", person % 3 == 0 ? "" : "u\(person)", person % 2 == 0 ? "ios" : "android", "iPhone14-2", "17.4",
                "2.3.1", "v6.13.0", "id1234567", "Bench", "false", "true", "\"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)\"",
            ]
            return fields.joined(separator: ",")
        }
    }

    /// Writes `rows` Segment calls (a tenth identify, a tenth purchases, the rest track calls with
    /// properties and a context), and their funnel NDJSON translation.
    public static func prepareSegment(rows: Int, directory: String) throws -> (vendor: String, plain: String) {
        let vendor = directory + "/segment-calls-bench.ndjson"
        let plain = directory + "/segment-translated.ndjson"
        let base = 1_714_521_600
        let formatter = ISO8601DateFormatter()
        return try write(rows: rows, vendor: vendor, plain: plain, source: .segment) { row in
            let person = row / 10
            let at = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base + (person % 2_000_000) + (row % 10) * 3600)))
            let context = #""context":{"app":{"namespace":"com.example.app","name":"Bench","version":"6.13.0"},"device":{"id":"dev-\#(person)","model":"iPhone14-2"},"library":{"name":"analytics-ios","version":"4.1.8"},"locale":"en-US","os":{"name":"iOS","version":"17.4"}}"#
            switch row % 10 {
            case 0:
                return #"{"type":"identify","messageId":"m-\#(row)","anonymousId":"anon-\#(person)","userId":"u\#(person)","timestamp":"\#(at)","traits":{"plan":"pro","email":"u\#(person)@example.com"},\#(context)}"#
            case 5:
                return #"{"type":"track","event":"Order Completed","messageId":"m-\#(row)","userId":"u\#(person)","timestamp":"\#(at)","properties":{"revenue":1.99,"currency":"USD","product_id":"gems"},\#(context)}"#
            default:
                return #"{"type":"track","event":"Level Achieved","messageId":"m-\#(row)","userId":"u\#(person)","anonymousId":"anon-\#(person)","timestamp":"\#(at)","properties":{"level":\#(row % 50),"mode":"story","score":\#(row % 977)},\#(context)}"#
            }
        }
    }

    /// Writes `rows` Firebase BigQuery export rows (a tenth first_open, a tenth in_app_purchase,
    /// the rest events with three params, each with its device, geo and app_info), and their
    /// funnel NDJSON translation.
    public static func prepareFirebase(rows: Int, directory: String) throws -> (vendor: String, plain: String) {
        let vendor = directory + "/firebase-rows-bench.ndjson"
        let plain = directory + "/firebase-translated.ndjson"
        let base: Int64 = 1_714_521_600
        return try write(rows: rows, vendor: vendor, plain: plain, source: .firebase) { row in
            let person = row / 10
            let micros = (base + Int64(person % 2_000_000) + Int64(row % 10) * 3600) * 1_000_000 + Int64(row % 1000)
            let name: String
            let params: String
            switch row % 10 {
            case 0:
                name = "first_open"
                params = #"[{"key":"firebase_event_origin","value":{"string_value":"auto","int_value":null,"float_value":null,"double_value":null}}]"#
            case 5:
                name = "in_app_purchase"
                params = #"[{"key":"value","value":{"string_value":null,"int_value":null,"float_value":null,"double_value":1.99}},{"key":"currency","value":{"string_value":"USD","int_value":null,"float_value":null,"double_value":null}},{"key":"product_id","value":{"string_value":"gems","int_value":null,"float_value":null,"double_value":null}}]"#
            default:
                name = "level_up"
                params = #"[{"key":"level","value":{"string_value":null,"int_value":"\#(row % 50)","float_value":null,"double_value":null}},{"key":"character","value":{"string_value":"wizard","int_value":null,"float_value":null,"double_value":null}},{"key":"score","value":{"string_value":null,"int_value":null,"float_value":null,"double_value":\#(row % 977).5}}]"#
            }
            let user = person % 3 == 0 ? "null" : "\"u\(person)\""
            return #"{"event_date":"20240501","event_timestamp":"\#(micros)","event_name":"\#(name)","event_params":\#(params),"event_previous_timestamp":null,"event_value_in_usd":null,"event_bundle_sequence_id":"\#(row)","user_id":\#(user),"user_pseudo_id":"p\#(person)","user_properties":[],"user_first_touch_timestamp":"\#(micros)","device":{"category":"mobile","mobile_brand_name":"Apple","mobile_model_name":"iPhone","operating_system":"iOS","operating_system_version":"17.4","language":"en-us"},"geo":{"continent":"Europe","country":"\#(["United States", "Germany", "United Kingdom", "Japan"][person % 4])","region":"Berlin","city":"Berlin"},"app_info":{"id":"com.example.app","version":"6.13.0","firebase_app_id":"1:123:ios:abc","install_source":"com.apple.AppStore"},"traffic_source":{"name":"spring_\#(person % 7)","medium":"cpc","source":"\#(["google", "facebook", "(direct)", "tiktok"][person % 4])"},"stream_id":"123","platform":"\#(person % 2 == 0 ? "IOS" : "ANDROID")"}"#
        }
    }

    /// Writes `rows` Amplitude export events (one hourly file's form, not gzipped: a tenth
    /// session_start, a tenth revenue events, the rest events with properties, each with its
    /// user properties, location and device columns), and their funnel NDJSON translation.
    public static func prepareAmplitude(rows: Int, directory: String) throws -> (vendor: String, plain: String) {
        let vendor = directory + "/123456_2024-05-01_0#0.json"
        let plain = directory + "/amplitude-translated.ndjson"
        let base = 1_714_521_600
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return try write(rows: rows, vendor: vendor, plain: plain, source: .amplitude) { row in
            let person = row / 10
            let at = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(base + (person % 2_000_000) + (row % 10) * 3600))) + ".\(String(format: "%06d", row % 1_000_000))"
            let user = person % 3 == 0 ? "null" : "\"u\(person)\""
            let (type, properties, revenue): (String, String, String) = switch row % 10 {
            case 0: ("session_start", "{}", "null")
            case 5: ("[Amplitude] Revenue", #"{"$productId":"gems","$price":1.99,"$quantity":1,"$currency":"USD"}"#, "1.99")
            default: ("Level Up", #"{"level":\#(row % 50),"mode":"story","score":\#(row % 977)}"#, "null")
            }
            return #"{"uuid":"a-\#(row)","event_type":"\#(type)","event_time":"\#(at)","server_upload_time":"\#(at)","user_id":\#(user),"device_id":"d-\#(person)","amplitude_id":\#(900_000 + person),"app":123456,"session_id":\#(base + person),"event_properties":\#(properties),"user_properties":{"plan":"pro","cohort":"spring"},"revenue":\#(revenue),"$insert_id":"i-\#(row)","country":"United States","city":"Austin","platform":"iOS","os_name":"ios","os_version":"17.4","device_brand":"Apple","device_model":"iPhone14-2","language":"English","library":"amplitude-swift/1.4.0"}"#
        }
    }

    /// Writes `header`, then each row's line from `line` (a megabyte at a time), into `vendor`, and
    /// the file's funnel NDJSON translation into `plain`.
    private static func write(rows: Int, header: String = "", vendor: String, plain: String, source: VendorSource,
                              line: (Int) -> String) throws -> (vendor: String, plain: String) {
        let output = try FileOutput(path: vendor)
        var text = header
        for row in 0..<rows {
            text += line(row)
            text += "\n"
            if text.utf8.count > 1 << 20 {
                try output.write(Array(text.utf8))
                text = ""
            }
        }
        try output.write(Array(text.utf8))
        output.close()
        try VendorTranslation.writeNDJSON(from: vendor, source: source, to: plain)
        return (vendor, plain)
    }

    /// Loads the plain NDJSON into `plainDatabase`, then the vendor export into `vendorDatabase`.
    public static func run(rows: Int, vendor: String, plain: String, source name: String = "appsflyer", plainDatabase: ConnectionSettings,
                           vendorDatabase: ConnectionSettings, logger: Logger) throws -> Result {
        func load(_ path: String, source: VendorSource?, settings: ConnectionSettings) throws -> (Double, Int) {
            var run = IngestRun(settings: settings, kind: nil, assumeTimeZone: "UTC", workers: 1,
                                workerOptions: WorkerOptions(pollSeconds: 0.2))
            run.source = source
            let clock = ContinuousClock()
            let started = clock.now
            let reports = try run.run(files: [path], stop: StopFlag(), progress: IngestProgress(), logger: logger)
            let elapsed = clock.now - started
            guard let report = reports.first, report.status == .loaded else {
                throw PostgresError(code: .client, message: "\(path) did not load: \(reports.first?.message ?? "no report")")
            }
            return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18, report.counts.rowsLoaded)
        }
        let (plainSeconds, plainLoaded) = try load(plain, source: nil, settings: plainDatabase)
        let (vendorSeconds, vendorLoaded) = try load(vendor, source: VendorSource(rawValue: name) ?? .appsflyer, settings: vendorDatabase)
        let size = (try? FileManager.default.attributesOfItem(atPath: vendor)[.size] as? NSNumber)?.int64Value ?? 0
        return Result(rows: rows, vendorBytes: size, plainSeconds: plainSeconds, vendorSeconds: vendorSeconds,
                      plainLoaded: plainLoaded, vendorLoaded: vendorLoaded)
    }
}
