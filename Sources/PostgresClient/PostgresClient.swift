public enum PostgresClientModule {}
