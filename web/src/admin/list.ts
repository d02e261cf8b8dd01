/** A searchable, paged list of the Admin Area: the page reads it and keeps the search and page. */
export interface ListProps<Q> {
  query: Q;
  search: string;
  page: number;
  onSearch: (text: string) => void;
  onPage: (page: number) => void;
}
