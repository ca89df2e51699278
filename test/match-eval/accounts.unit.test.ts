// The accounts file's optional address and mail columns: read as the CRM holds them, and a cell a
// spreadsheet damaged is named by line and column, like every other problem of the file.
import { describe, expect, it } from 'vitest';
import { AccountsFileError, parseAccounts } from '../../src/match-eval/accounts.ts';

const header = 'name,state,website,expected,city,county,zip,street,email_domain';

describe('the address and mail columns', () => {
  it('passes city, county, zip, street and the mail domains through', () => {
    const [a] = parseAccounts(
      `${header}\nTravis County Clerk,TX,,review,Austin,Travis County,78701-1234,5501 Airport Blvd,"clerk@traviscountytx.gov; @TravisCountyTX.gov, co.travis.tx.us"\n`,
    );
    expect(a).toMatchObject({
      city: 'Austin',
      county: 'Travis County',
      zip: '78701-1234',
      street: '5501 Airport Blvd',
      emailDomains: ['traviscountytx.gov', 'co.travis.tx.us'],
    });
  });

  it('leaves them empty when the file has no such columns or the cells are blank', () => {
    const [old, blank] = [
      parseAccounts('name,state,website,expected\nCity of Austin,TX,,review\n')[0],
      parseAccounts(`${header}\nCity of Austin,TX,,review,,,,,\n`)[0],
    ];
    for (const a of [old, blank])
      expect(a).toMatchObject({ city: null, county: null, zip: null, street: null, emailDomains: [] });
  });

  it('accepts an account known only by its mail domain', () => {
    const [a] = parseAccounts(`${header}\n,,,review,,,,,dallascounty.org\n`);
    expect(a?.name).toBeNull();
    expect(a?.emailDomains).toEqual(['dallascounty.org']);
  });

  it.each([
    ['a zip that lost its leading zero', '2129', /line 2, column zip: "2129" is one digit short of a zip/],
    ['a zip that is not one', 'MA 02129', /line 2, column zip: "MA 02129" is not a zip/],
  ])('refuses %s', (_, zip, message) => {
    expect(() => parseAccounts(`${header}\nMWRA,MA,,review,Boston,,${zip},,\n`)).toThrow(message);
  });

  it('refuses a mail domain that is not one, naming the line and column', () => {
    expect(() => parseAccounts(`${header}\nMWRA,MA,,review,,,,,mwra\n`)).toThrow(
      /line 2, column email_domain: "mwra" is not a mail domain/,
    );
    expect(() => parseAccounts(`${header}\nMWRA,MA,,review,,,,,mwra\n`)).toThrow(AccountsFileError);
  });

  it('still refuses an account with nothing to match by', () => {
    expect(() => parseAccounts(`${header}\n,,,review,Boston,,02129,,\n`)).toThrow(
      /line 2: the account has no name, website, email domain or id to match by/,
    );
  });
});
