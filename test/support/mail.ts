/**
 * The platform without SMTP_URL writes each mail to DATA_DIR/mail/*.eml; suites read links
 * from there with the API tests' helper.
 */
export { linkFromMailFile } from '../../api/src/testing/accounts.ts';
