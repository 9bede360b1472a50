// Every test run validates responses against the spec and keeps logs quiet.
process.env.NODE_ENV = 'test';
