/// The reference exchange rates (USD per unit) that migration `0003_currency_rates.sql` seeds.
///
/// The generator plants purchase amounts in these currencies and states its truth in USD with
/// these rates; a test holds this table and the migration's seed to the same values.
public enum ReferenceRates {
    public static let usdPerUnit: [String: Double] = [
        "USD": 1.0, "EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "CNY": 0.138,
        "KRW": 0.00075, "BRL": 0.20, "INR": 0.012, "CAD": 0.74, "AUD": 0.66,
    ]
}
