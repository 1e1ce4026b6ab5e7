/// Shared fixtures for the test targets (the embedded test cluster arrives with PostgresClient).
public enum TestSupport {}
