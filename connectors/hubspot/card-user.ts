// The HubSpot user behind a card request. `hubspot.fetch` appends userId and userEmail to the URL and
// the v3 signature covers the whole URL, so once the signature holds they are HubSpot's word, not the
// card's. They still end up in the store, in a CRM field ("Rejected by …") and on the admin page, so
// only plain, bounded values are taken; anything else is ignored (the tenant alone is recorded).

/** An address a person would recognise, short enough that "hubspot <portal> <email>" stays < 200. */
const EMAIL = /^[A-Za-z0-9._%+'-]{1,64}@[A-Za-z0-9-]{1,63}(\.[A-Za-z0-9-]{1,63})*\.[A-Za-z]{2,24}$/;
const EMAIL_MAX = 120;
const USER_ID = /^[1-9]\d{0,17}$/;

/** `userEmail` when it looks like one, else `user <userId>` when that is a number, else undefined. */
export function hubspotCardUser(params: URLSearchParams): string | undefined {
  const email = params.get('userEmail')?.trim();
  if (email && email.length <= EMAIL_MAX && EMAIL.test(email)) return email;
  const userId = params.get('userId')?.trim();
  if (userId && USER_ID.test(userId)) return `user ${userId}`;
  return undefined;
}
