import Foundation
import FunnelCore
import FunnelIngest
import PostgresClient
import Testing

/// The `currency_rates` kind: dated rates in the long format (date, currency, usd_per_unit), and
/// the European Central Bank's reference-rate CSV as published, each currency's units per euro
/// turned into US dollars per unit with the same date's USD column.
@Suite("Loader: currency_rates")
struct CurrencyRatesKindTests {
    @Test("long format: rates load, a later row for a (currency, date) restates it, bad rows are rejected with file, line and reason")
    func longFormat() throws {
        let db = try LoaderFixture()
        let first = try db.file("currency_rates-1.csv", "date,currency,usd_per_unit\n"
            + "2024-05-01,CHF,1.10\n2024-05-01,XYZ,1.0\n2024-13-01,CHF,1.1\n2024-05-02,CHF,0\n"
            + "2024-05-01,chf,1.12\n2024-05-03,CHF,0.00000000001\n2024-05-04,GBP,1.25\n")
        let second = try db.file("currency_rates-2.csv", "usd_per_unit,currency,date\n1.15,CHF,2024-05-01\n")
        let reports = try db.ingest([first, second])
        #expect(reports.map(\.status) == [.loaded, .loaded])
        #expect(reports.map(\.counts.rowsLoaded) == [2, 1])
        #expect(reports.map(\.counts.duplicates) == [1, 0])
        #expect(reports[0].counts.rejected == 4)
        #expect(reports[0].counts.lines == LineCounts(lines: 8, header: 1))
        #expect(try db.rows("select rate_date::text, currency, usd_per_unit::text from raw_currency_rates order by 2, 1") == [
            ["2024-05-01", "CHF", "1.1500000000"], ["2024-05-04", "GBP", "1.2500000000"],
        ])
        #expect(try db.rows("select f.path, r.line::text, r.kind, r.reason from ingest_rejects r join ingest_files f using (file_id) order by r.line") == [
            [first, "3", "currency_rates", #"currency: "XYZ" is not an ISO 4217 currency code"#],
            [first, "4", "currency_rates", #"date: "2024-13-01" is not a date (use YYYY-MM-DD)"#],
            [first, "5", "currency_rates", #"usd_per_unit: "0" is not above 0"#],
            [first, "7", "currency_rates", #"usd_per_unit: "0.00000000001" has more than 10 decimal places"#],
        ])
    }

    /// Rates as the ECB publishes them; the expected values are USD per EUR over the currency's
    /// units per EUR, rounded half up to 10 decimals (1.0745 / 164.62 = 0.00652715344...).
    @Test("ECB history file: one rate per currency and date in USD per unit, N/A and empty skipped, withdrawn currencies ignored")
    func ecbHistory() throws {
        let db = try LoaderFixture()
        let path = try db.file("eurofxref-hist.csv", "Date,USD,JPY,CHF,CYP,GBP,\n"
            + "2024-05-03,1.0745,164.62,0.9765,N/A,0.8561,\n"
            + "2024-05-02,1.0710,165.00,N/A,N/A,0.8560,\n"
            + "2024-05-01,1.0800,168.00,0.9800,0.5800,,\n"
            + "2024-05-06,1.0700,abc,0.9700,N/A,0.8500,\n"
            + "2024-02-30,1.0700,160.00,0.9700,N/A,0.8500,\n"
            + "2024-04-30,N/A,160.00,0.9700,N/A,0.8500,\n")
        let report = try #require(try db.ingest([path], kind: .currencyRates).first)
        #expect(report.status == .loaded)
        #expect(report.counts.rowsRead == 6)
        #expect(report.counts.rejected == 3)
        #expect(report.counts.rowsLoaded == 10)
        #expect(report.counts.lines == LineCounts(lines: 7, header: 1))
        #expect(try db.rows("select rate_date::text, currency, usd_per_unit::text from raw_currency_rates order by 1, 2") == [
            ["2024-05-01", "CHF", "1.1020408163"], ["2024-05-01", "EUR", "1.0800000000"], ["2024-05-01", "JPY", "0.0064285714"],
            ["2024-05-02", "EUR", "1.0710000000"], ["2024-05-02", "GBP", "1.2511682243"], ["2024-05-02", "JPY", "0.0064909091"],
            ["2024-05-03", "CHF", "1.1003584229"], ["2024-05-03", "EUR", "1.0745000000"], ["2024-05-03", "GBP", "1.2551103843"],
            ["2024-05-03", "JPY", "0.0065271534"],
        ])
        #expect(try db.rows("select r.line::text, r.reason from ingest_rejects r order by r.line") == [
            ["5", #"JPY: "abc" is not a decimal number"#],
            ["6", #"Date: "2024-02-30" is not a date (use YYYY-MM-DD, or the ECB's 1 December 2026)"#],
            ["7", "USD: no rate on this date, so no currency of it can be converted to US dollars"],
        ])
    }

    @Test("ECB daily file: dates like 03 May 2024 and spaces after the commas, told from its name")
    func ecbDaily() throws {
        let db = try LoaderFixture()
        let path = try db.file("currency_rates-eurofxref.csv", "Date, USD, JPY, BGN, \n03 May 2024, 1.0745, 164.62, 1.9558, \n")
        let report = try #require(try db.ingest([path]).first)
        #expect(report.status == .loaded)
        #expect(try db.rows("select rate_date::text, currency, usd_per_unit::text from raw_currency_rates order by 2") == [
            ["2024-05-03", "BGN", "0.5493915533"], ["2024-05-03", "EUR", "1.0745000000"], ["2024-05-03", "JPY", "0.0065271534"],
        ])
    }

    @Test("an ECB header without a USD column is refused: no rate of it converts to US dollars")
    func ecbWithoutUSD() throws {
        let db = try LoaderFixture()
        let path = try db.file("currency_rates-nousd.csv", "Date,JPY,CHF\n2024-05-03,164.62,0.9765\n")
        let report = try #require(try db.ingest([path]).first)
        #expect(report.status == .refused)
        #expect(report.message?.contains("lacks the required currency_rates column USD") == true, "\(report.message ?? "")")
        #expect(try db.count("select count(*) from raw_currency_rates") == 0)
    }

    @Test("a refund is a purchase row with a negative revenue; other money stays non-negative")
    func refundsLoad() throws {
        let db = try LoaderFixture()
        let purchases = try db.file("purchases-refund.csv", "event_id,app_id,user_id,purchased_at,revenue,currency\n"
            + "p1,app,u1,2024-05-02T00:00:00Z,9.99,EUR\np2,app,u1,2024-05-04T00:00:00Z,-9.99,EUR\n")
        let spend = try db.file("ad_spend-negative.csv", "app_id,date,network,spend\napp,2024-05-01,unity,-5\n")
        let reports = try db.ingest([purchases, spend])
        #expect(reports.map(\.counts.rowsLoaded) == [2, 0])
        #expect(try db.rows("select event_id, revenue::text from raw_purchases order by 1") == [["p1", "9.990000"], ["p2", "-9.990000"]])
        #expect(try db.rows("select reason from ingest_rejects") == [[#"spend: "-5" is negative"#]])
    }
}
